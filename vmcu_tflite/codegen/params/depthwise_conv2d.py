"""vmcu_depthwise_params from DepthwiseConv2DParams."""
from __future__ import annotations

from ...kernels.requant import bias_ctype, negate, requant_form
from .common import requant, struct


def emit(step, graph, writer, name):
    p = step.params
    form = requant_form(p.filter, p.bias, p.requant, -1)  # the kernel's: its tables' encoding
    filt = writer.array("int8_t", f"{name}_filter", negate(p.filter, form, -1))
    bias = writer.array(bias_ctype(p.bias), f"{name}_bias", negate(p.bias, form, 0))
    return "vmcu_depthwise_params", struct(input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
                                          requant=requant(writer, name, p.requant, form))
