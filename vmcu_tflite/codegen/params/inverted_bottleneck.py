"""vmcu_inverted_bottleneck_params: the fused block's layers, each as its own params struct."""
from __future__ import annotations

from dataclasses import replace

from . import add, conv2d, depthwise_conv2d
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    parts = []

    def part(emitter, kernel, params, label, inputs=step.inputs):
        ctype, init = emitter(replace(step, kernel=kernel, params=params, inputs=inputs), graph, writer,
                              f"{name}_{label}")
        writer.struct(ctype, f"{name}_{label}", init)
        parts.append(f"&{writer.prefix}_{name}_{label}")

    if p.expand is not None:
        part(conv2d.emit, "CONV_2D", p.expand, "lead")
    else:
        parts.append("0")
    part(depthwise_conv2d.emit, "DEPTHWISE_CONV_2D", p.depthwise, "depthwise")
    part(conv2d.emit, "CONV_2D", p.project, "project")
    if p.add is not None:  # only its arithmetic: the residual has the block's shapes, folded into the C
        writer.struct("vmcu_binary_arith", f"{name}_add", add.arith(p.add))
        parts.append(f"&{writer.prefix}_{name}_add")
    else:
        parts.append("0")
    return "vmcu_inverted_bottleneck_params", struct(lead=parts[0], depthwise=parts[1], project=parts[2], add=parts[3])
