"""TRANSPOSE_CONV: int8 transposed convolution (inputs: output shape, OHWI filter, input, optional
bias), per-channel requantization as CONV_2D, dilation 1.

TFLite Micro scatters every input pixel through the filter into an int32 buffer of the whole
output. The same sums are gathered here per output pixel instead (integer additions in another
order give the same int32 bits), so the kernel needs no buffer. The padding is TFLite's
ComputePaddingHeightWidth over the output's size.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.transpose_conv import emit
from ..graph import Graph, Op
from .common import (INT16_MAX, PADDING_SAME, Requantization, bias_values, constant, output, require, requantization,
                     tensor)
from .spec import OpSpec

KIND = "TRANSPOSE_CONV"


@dataclass(frozen=True, eq=False)
class TransposeConvParams:
    input_shape: tuple[int, int, int, int]
    output_shape: tuple[int, int, int, int]
    filter: np.ndarray  # [C_out, K_h, K_w, C_in] int8
    bias: np.ndarray  # [C_out] int32
    stride: tuple[int, int]  # (h, w)
    padding: tuple[int, int]  # output rows/columns cut before the first (TFLite's padding_values)
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    requant: Requantization


def transposed_padding(out_size: int, filter_size: int, stride: int, padding: int) -> int:
    """TFLite's ComputePaddingWithOffset with the transposed conv's output as the 'input'."""
    if padding == PADDING_SAME:
        windows = (out_size + stride - 1) // stride
    else:
        windows = (out_size + stride - filter_size) // stride
    return max(0, (windows - 1) * stride + filter_size - out_size) // 2


def prepare(graph: Graph, op: Op) -> TransposeConvParams:
    require(len(op.inputs) in (3, 4) and len(op.outputs) == 1, op,
            "expects an output shape, a filter, an input, an optional bias and one output")
    shape_tensor, filter_, input_ = (tensor(graph, op, position) for position in (0, 1, 2))
    out = output(graph, op)
    require(input_ is not None and len(input_.shape) == 4 and filter_ is not None and filter_.is_constant
            and len(filter_.shape) == 4, op, "expects a 4-D input and a constant 4-D filter")
    require(shape_tensor is not None and shape_tensor.dtype == "int32" and shape_tensor.shape == (4,), op,
            "the output shape must be an int32 tensor of shape (4,)")
    declared = tuple(int(v) for v in constant(graph, op, 0, "the output shape"))
    require(out.shape == declared, op, f"output shape {out.shape} differs from the output shape input {declared}")
    require(out.shape[0] == input_.shape[0] and out.shape[3] == filter_.shape[0]
            and filter_.shape[3] == input_.shape[3], op,
            f"output {out.shape}, filter {filter_.shape} and input {input_.shape} do not match")
    o = op.options
    stride = (int(o.stride_h), int(o.stride_w))
    padding = tuple(transposed_padding(out.shape[1 + a], filter_.shape[1 + a], stride[a], o.padding)
                    for a in (0, 1))
    require(max(padding) <= INT16_MAX, op, f"padding {max(padding)} exceeds {INT16_MAX}")
    channels = out.shape[3]
    return TransposeConvParams(
        input_shape=input_.shape, output_shape=out.shape, filter=filter_.data, bias=bias_values(graph, op, 3, channels),
        stride=stride, padding=padding, input_offset=-input_.zero_point, output_offset=out.zero_point,
        requant=requantization(op, input_, filter_, out, channels))


def macs(params: TransposeConvParams) -> int:
    n, h, w, c_in = params.input_shape
    c_out, k_h, k_w, _ = params.filter.shape
    return n * h * w * c_in * k_h * k_w * c_out


SPEC = OpSpec(KIND, kind_id=34, emit=emit, prepare=prepare, c_kernel="vmcu_transpose_conv_s8", macs=macs,
              arity=((3, 4), 1, frozenset({3})), options="TransposeConvOptions", options_required=True)
