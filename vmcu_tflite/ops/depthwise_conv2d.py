"""DEPTHWISE_CONV_2D: int8 depthwise convolution (any depth multiplier), per-channel requantization;
int16 activations with int8 weights too (the 16x8 form, `int16_heavy.py`).

The filter is [1, K_h, K_w, C_in * depth_multiplier]; output channel `c` reads input channel
`c // depth_multiplier`, as in TFLite's DepthwiseConvPerChannel.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.depthwise_conv2d import emit
from ..graph import Graph, Op
from .common import Requantization, bias_values, output, require, requantization, tensor
from .conv2d import conv_geometry
from .int16_heavy import bias16, check_activations, check_filter, check_wide_shifts, is_int16, requantization16
from .spec import OpSpec

KIND = "DEPTHWISE_CONV_2D"


@dataclass(frozen=True, eq=False)
class DepthwiseConv2DParams:
    input_shape: tuple[int, int, int, int]
    output_shape: tuple[int, int, int, int]
    filter: np.ndarray  # [1, K_h, K_w, C_out] int8
    bias: np.ndarray  # [C_out] int32
    depth_multiplier: int
    stride: tuple[int, int]  # (h, w)
    dilation: tuple[int, int]  # (h, w)
    padding: tuple[int, int]  # implicit zeros before the first (row, column), folded PAD included
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    requant: Requantization
    tuning: str = "dsp"  # the core family its kernel is shaped for (kernels/tuning.py)
    element: int = 1  # bytes per activation: 2 for int16 (the 16x8 form)
    wide: bool = False  # int16: accumulates in int64 (an int64 bias) with the 64-bit requantization
    int16_weights: bool = False  # the filter stored lane-ordered in int16 (`kernels/widened_weights.py`)
    pixel_triples: bool = True  # a chain may make its rows three pixels at a time (`kernels/chain._in_threes`)


def prepare(graph: Graph, op: Op) -> DepthwiseConv2DParams:
    input_, filter_, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(len(op.inputs) in (2, 3) and len(op.outputs) == 1, op, "expects 2 or 3 inputs and 1 output")
    require(input_ is not None and len(input_.shape) == 4 and len(out.shape) == 4, op,
            "expects a 4-D input and a 4-D output")
    require(filter_ is not None and filter_.is_constant and len(filter_.shape) == 4 and filter_.shape[0] == 1, op,
            "expects a constant [1, K_h, K_w, C_out] filter")
    if is_int16(graph, op):
        check_activations(op, input_, out)
        check_filter(op, filter_)
    require(filter_.dtype == "int8" and filter_.quant is not None, op, "the filter must be quantized int8")
    channels = filter_.shape[3]
    multiplier = op.options.depth_multiplier
    require(multiplier >= 1 and channels == input_.shape[3] * multiplier, op,
            f"filter channels {channels} != input channels {input_.shape[3]} x depth multiplier {multiplier}")
    require(out.shape[3] == channels and out.shape[0] == input_.shape[0], op,
            f"output shape {out.shape} does not match the input batch and the filter's {channels} channels")
    require(not filter_.quant.per_channel or filter_.quant.axis == 3, op,
            "per-channel filter scales must be on the last (channel) dimension")
    dilation = (op.options.dilation_h_factor, op.options.dilation_w_factor)
    stride, padding = conv_geometry(graph, op, filter_.shape[1:3], dilation)
    if is_int16(graph, op):  # the 16x8 form: TFLite Micro's int16 DepthwiseConvPerChannel
        bias, wide = bias16(graph, op, 2, channels, int32_ok=False)
        requant = requantization16(op, input_, filter_, out, channels)
        check_wide_shifts(op, requant, wide)
        return DepthwiseConv2DParams(
            input_shape=input_.shape, output_shape=out.shape, filter=filter_.data, bias=bias,
            depth_multiplier=multiplier, stride=stride, dilation=dilation, padding=padding, input_offset=0,
            output_offset=0, requant=requant, element=2, wide=wide)
    bias = bias_values(graph, op, 2, channels)
    require(bias.size == channels, op, f"bias has {bias.size} values for {channels} channels")
    return DepthwiseConv2DParams(
        input_shape=input_.shape, output_shape=out.shape, filter=filter_.data, bias=bias, depth_multiplier=multiplier, stride=stride,
        dilation=dilation, padding=padding, input_offset=-input_.zero_point, output_offset=out.zero_point,
        requant=requantization(op, input_, filter_, out, channels))


def macs(params: DepthwiseConv2DParams) -> int:
    n, h, w, c_out = params.output_shape
    _, k_h, k_w, _ = params.filter.shape
    return n * h * w * c_out * k_h * k_w


# TFLite Micro crashes on a third input of -1: the bias may not be omitted
SPEC = OpSpec(KIND, kind_id=1, emit=emit, prepare=prepare, macs=macs, arity=((2, 3), 1, frozenset()),
              options="DepthwiseConv2DOptions", options_required=True, activation_types=frozenset({"int16"}))
