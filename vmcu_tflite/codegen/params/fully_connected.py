"""vmcu_fully_connected_params from FullyConnectedParams."""
from __future__ import annotations

from ...kernels.requant import bias_ctype
from .common import requant, struct


def emit(step, graph, writer, name):
    p = step.params
    filt = writer.array("int8_t", f"{name}_filter", p.filter)
    bias = writer.array(bias_ctype(p.bias), f"{name}_bias", p.bias)
    return "vmcu_fully_connected_params", struct(input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
                                                requant=requant(writer, name, p.requant))
