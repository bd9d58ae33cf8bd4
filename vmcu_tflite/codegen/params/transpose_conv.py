"""vmcu_transpose_conv_params from TransposeConvParams (filter, bias and requantization in flash)."""
from __future__ import annotations

from .common import dims, requant, struct


def emit(step, graph, writer, name):
    p = step.params
    filt = writer.array("int8_t", f"{name}_filter", p.filter)
    bias = writer.array("int32_t", f"{name}_bias", p.bias)
    return "vmcu_transpose_conv_params", struct(
        input=dims(p.input_shape), output=dims(p.output_shape), filter_h=p.filter.shape[1], filter_w=p.filter.shape[2],
        stride_h=p.stride[0], stride_w=p.stride[1], pad_h=p.padding[0], pad_w=p.padding[1],
        filter_length=p.filter.size, input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
        requant=requant(writer, name, p.requant))
