"""CONV_2D: int8 convolution with per-channel requantization, NHWC input, OHWI filter; int16 activations
with int8 weights too (the 16x8 form, `int16_heavy.py`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.conv2d import emit
from ..graph import Graph, Op
from .common import (INT16_MAX, Requantization, bias_values, output, output_size, require, requantization, tensor,
                     window_padding)
from .int16_heavy import bias16, check_activations, check_filter, check_wide_shifts, is_int16, requantization16
from .spec import OpSpec

KIND = "CONV_2D"


@dataclass(frozen=True, eq=False)
class Conv2DParams:
    input_shape: tuple[int, int, int, int]
    output_shape: tuple[int, int, int, int]
    filter: np.ndarray  # [C_out, K_h, K_w, C_in / groups] int8
    bias: np.ndarray  # [C_out] int32
    stride: tuple[int, int]  # (h, w)
    dilation: tuple[int, int]  # (h, w)
    padding: tuple[int, int]  # implicit zeros before the first (row, column)
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    requant: Requantization
    tuning: str = "dsp"  # the core family its kernel is shaped for (kernels/tuning.py)
    element: int = 1  # bytes per activation: 2 for int16 (the 16x8 form)
    wide: bool = False  # int16: accumulates in int64 (an int64 bias) with the 64-bit requantization
    int16_weights: bool = False  # a 1x1 filter stored widened to int16 (`kernels/widened_weights.py`)
    paired_weights: bool = False  # a 1x1 filter's channel pairs interleaved word by word (`kernels/paired_weights.py`)
    # (f_h, f_w) of a nearest-neighbour upsample folded in (`passes.fold_upsamples`): `input_shape` is then the
    # upsampled shape the window's geometry is about, and the tensor read is `source_shape`, f_h and f_w smaller
    upsample: tuple[int, int] = (1, 1)

    @property
    def source_shape(self) -> tuple[int, int, int, int]:
        """The shape of the tensor the convolution reads (its input, before any folded upsample)."""
        n, h, w, c = self.input_shape
        return n, h // self.upsample[0], w // self.upsample[1], c


def upsampled_shape(graph: Graph, op: Op) -> tuple[int, ...]:
    """The shape of the input the op's window walks: its input tensor's, times a folded upsample's factors."""
    shape = graph.tensors[op.inputs[0]].shape
    f_h, f_w = op.options.get("folded_upsample", (1, 1))  # a pass's value, not the model's
    return shape if (f_h, f_w) == (1, 1) else (shape[0], shape[1] * f_h, shape[2] * f_w) + tuple(shape[3:])


def conv_geometry(graph: Graph, op: Op, kernel_hw: tuple[int, int], dilation: tuple[int, int]):
    """Stride and top/left padding of a windowed op (pools pass a dilation of 1), PADs folded into
    it by the passes included."""
    o = op.options
    in_shape = upsampled_shape(graph, op)
    out_shape = output(graph, op).shape
    stride = (o.stride_h, o.stride_w)
    folded = o.get("folded_padding", ((0, 0), (0, 0)))  # a pass's value, not the model's
    padding = o.padding
    for axis in (0, 1):
        expected = output_size(in_shape[1 + axis], kernel_hw[axis], stride[axis], dilation[axis], padding, folded[axis])
        require(expected == out_shape[1 + axis], op,
                f"output {'height' if axis == 0 else 'width'} {out_shape[1 + axis]} does not match the computed {expected}")
    pad = tuple(window_padding(in_shape[1 + a], out_shape[1 + a], kernel_hw[a], stride[a], dilation[a], padding,
                               folded[a]) for a in (0, 1))
    require(max(pad) <= INT16_MAX, op, f"padding {max(pad)} exceeds {INT16_MAX} (TFLite holds it in 16 bits)")
    return stride, pad


def prepare(graph: Graph, op: Op) -> Conv2DParams:
    input_, filter_, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(len(input_.shape) == 4 and filter_.is_constant and len(filter_.shape) == 4, op,
            "expects a 4-D input and a constant 4-D filter")
    require(len(out.shape) == 4 and out.shape[0] == input_.shape[0] and out.shape[3] == filter_.shape[0], op,
            f"output shape {out.shape} does not match input {input_.shape} and filter {filter_.shape}")
    require(input_.shape[3] % filter_.shape[3] == 0, op, "input channels are not a multiple of the filter depth")
    groups = input_.shape[3] // filter_.shape[3]
    require(filter_.shape[0] % groups == 0, op, f"{filter_.shape[0]} filters do not split into {groups} groups")
    dilation = (op.options.dilation_h_factor, op.options.dilation_w_factor)
    stride, padding = conv_geometry(graph, op, filter_.shape[1:3], dilation)
    channels = out.shape[3]
    upsample = tuple(op.options.get("folded_upsample", (1, 1)))
    in_shape = upsampled_shape(graph, op)
    if is_int16(graph, op):  # the 16x8 form: TFLite Micro's int16 ConvPerChannel
        check_activations(op, input_, out)
        check_filter(op, filter_)
        require(groups == 1, op, "a grouped 16x8 convolution is not supported")
        bias, wide = bias16(graph, op, 2, channels, declared=op.options.get("quantized_bias_type", 0))
        requant = requantization16(op, input_, filter_, out, channels)
        check_wide_shifts(op, requant, wide)
        return Conv2DParams(input_shape=in_shape, output_shape=out.shape, filter=filter_.data, bias=bias,
                            stride=stride, dilation=dilation, padding=padding, input_offset=0, output_offset=0,
                            requant=requant, element=2, wide=wide, upsample=upsample)
    return Conv2DParams(
        input_shape=in_shape, output_shape=out.shape, filter=filter_.data,
        bias=bias_values(graph, op, 2, channels), stride=stride, dilation=dilation, padding=padding,
        input_offset=-input_.zero_point, output_offset=out.zero_point,
        requant=requantization(op, input_, filter_, out, channels), upsample=upsample)


def macs(params: Conv2DParams) -> int:
    _, h, w, c_out = params.output_shape
    _, k_h, k_w, c_in = params.filter.shape
    return params.output_shape[0] * h * w * c_out * k_h * k_w * c_in


SPEC = OpSpec(KIND, kind_id=0, emit=emit, prepare=prepare, macs=macs, arity=((2, 3), 1, frozenset({2})),
              options="Conv2DOptions", options_required=True, activation_types=frozenset({"int16"}))
