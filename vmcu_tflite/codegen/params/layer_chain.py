"""vmcu_layer_chain_params: each layer of the chain as its own params struct, by position."""
from __future__ import annotations

from dataclasses import replace

from ...chain import is_depthwise, is_transpose
from . import add, conv2d, depthwise_conv2d
from .common import struct


def emit(step, graph, writer, name):
    """Two tables of pointers indexed by layer: `conv` holds the convolutions (NULL at a depthwise
    layer), `depthwise` the depthwise layers; the kernel reads layer j from the table of its kind."""
    conv, depthwise = [], []
    for j, layer in enumerate(step.params.layers):
        if is_transpose(layer):  # no params: its shapes are folded into the C
            conv.append("0")
            depthwise.append("0")
            continue
        dw = is_depthwise(layer)
        emitter, kernel = (depthwise_conv2d.emit, "DEPTHWISE_CONV_2D") if dw else (conv2d.emit, "CONV_2D")
        ctype, init = emitter(replace(step, kernel=kernel, params=layer), graph, writer, f"{name}_{j}")
        full = writer.struct(ctype, f"{name}_{j}", init)
        (depthwise if dw else conv).append(f"&{full}")
        (conv if dw else depthwise).append("0")
    tables = {kind: writer.pointers(f"const vmcu_{kind}_params *", f"{name}_{kind}", items)
              for kind, items in (("conv", conv), ("depthwise", depthwise))}
    residual = "0"
    if step.params.add is not None:  # only its arithmetic: the residual has the chain's shapes, folded into the C
        residual = "&" + writer.struct("vmcu_binary_arith", f"{name}_add", add.arith(step.params.add, writer, f"{name}_add"))
    return "vmcu_layer_chain_params", struct(conv=tables["conv"], depthwise=tables["depthwise"], add=residual)
