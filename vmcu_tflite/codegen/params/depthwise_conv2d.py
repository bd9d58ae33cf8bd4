"""vmcu_depthwise_params from DepthwiseConv2DParams."""
from __future__ import annotations

from ...kernels.requant import bias_ctype
from .common import dims, requant


def emit(step, graph, writer, name):
    p = step.params
    _, k_h, k_w, _ = p.filter.shape
    filt = writer.array("int8_t", f"{name}_filter", p.filter)
    bias = writer.array(bias_ctype(p.bias), f"{name}_bias", p.bias)
    return "vmcu_depthwise_params", (
        f"{{{dims(p.input_shape)}, {dims(p.output_shape)}, {k_h}, {k_w}, {p.depth_multiplier}, "
        f"{p.stride[0]}, {p.stride[1]}, {p.dilation[0]}, {p.dilation[1]}, {p.padding[0]}, {p.padding[1]}, "
        f"{p.input_offset}, {p.output_offset}, {filt}, {bias}, {requant(writer, name, p.requant)}}}")
