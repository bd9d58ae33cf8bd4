"""FULLY_CONNECTED: int8 [M, K] x [N, K]^T + bias, per-tensor or per-channel requantization; int16
activations with int8 weights too (the 16x8 form, `int16_heavy.py`).

TFLite Micro takes the row count from the output: M = output size / N, and reads the input as
M consecutive rows of K values whatever its shape (keep_num_dims only changes the output shape).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.fully_connected import emit
from ..graph import Graph, Op
from .int16_heavy import bias16, check_activations, check_filter, check_wide_shifts, is_int16, requantization16
from .common import (Requantization, bias_values, fused_activation, output, output_multiplier, require, requantization,
                     tensor)
from .spec import OpSpec

KIND = "FULLY_CONNECTED"


@dataclass(frozen=True, eq=False)
class FullyConnectedParams:
    rows: int  # M
    output_shape: tuple[int, ...]
    filter: np.ndarray  # [N, K] int8
    bias: np.ndarray  # [N] int32 (zeros when the model has none)
    input_offset: int  # -input zero point
    output_offset: int  # output zero point
    requant: Requantization  # one multiplier/shift per output channel (repeated when per-tensor)
    element: int = 1  # bytes per activation: 2 for int16 (the 16x8 form)
    wide: bool = False  # int16: accumulates in int64 (an int64 bias) with the 64-bit requantization


def check_bias_scale(op: Op, product: float, bias, out) -> None:
    """GetQuantizedConvolutionMultipler's check, for a per-tensor filter of any activation type: a
    bias's scale (0 when it has none) within 2 % of an output step of input scale x filter scale."""
    if bias is not None:
        bias_scale = bias.quant.scale[0] if bias.quant is not None else 0.0
        require(abs(product - bias_scale) / out.scale <= 0.02, op,
                "bias scale differs from input scale x filter scale")


def _per_tensor_requantization(op: Op, input_, filter_, bias, out, channels: int) -> Requantization:
    """TFLite's GetQuantizedConvolutionMultipler: input scale x filter scale / output scale in double.

    (Older TFLite Micro sources multiplied the two scales in float32 first; the oracle we test
    against does it in double, which changes the multiplier's last bits and, on exact ties, an
    output value: MLPerf AD01 shows it.)
    """
    product = input_.scale * filter_.quant.scale[0]
    require(product >= 0, op, "negative input x filter scale")
    check_bias_scale(op, product, bias, out)
    multiplier, shift = output_multiplier(op, product / out.scale)
    act_min, act_max = fused_activation(op, out)
    return Requantization(multiplier=(multiplier,) * channels, shift=(shift,) * channels,
                          act_min=act_min, act_max=act_max)


def prepare(graph: Graph, op: Op) -> FullyConnectedParams:
    input_, filter_, bias, out = tensor(graph, op, 0), tensor(graph, op, 1), tensor(graph, op, 2), output(graph, op)
    require(len(op.inputs) in (2, 3) and len(op.outputs) == 1, op, "expects 2 or 3 inputs and 1 output")
    if is_int16(graph, op):
        return _prepare16(graph, op, input_, filter_, out)
    require(op.options.weights_format == 0, op, "only the DEFAULT weights format is supported")
    require(filter_ is not None and filter_.is_constant and len(filter_.shape) == 2, op,
            "expects a constant 2-D [N, K] filter")
    require(filter_.dtype == "int8" and filter_.quant is not None, op, "the filter must be quantized int8")
    require(all(z == 0 for z in filter_.quant.zero_point), op, "filter zero points must be 0")
    channels, depth = filter_.shape
    require(len(out.shape) >= 1 and out.shape[-1] == channels, op,
            f"output's last dimension {out.shape[-1] if out.shape else None} != filter rows {channels}")
    rows = out.num_elements // channels
    require(input_.num_elements == rows * depth, op,
            f"input of {input_.num_elements} values is not {rows} rows of {depth}")
    bias_data = bias_values(graph, op, 2, channels)
    require(bias_data.size == channels, op, f"bias has {bias_data.size} values for {channels} channels")
    if filter_.quant.per_channel:
        require(len(filter_.quant.scale) == channels and filter_.quant.axis == 0, op,
                "per-channel filter scales must be one per output channel (dimension 0)")
        requant = requantization(op, input_, filter_, out, channels)
    else:
        requant = _per_tensor_requantization(op, input_, filter_, bias, out, channels)
    return FullyConnectedParams(rows=rows, output_shape=out.shape, filter=filter_.data, bias=bias_data,
                                input_offset=-input_.zero_point, output_offset=out.zero_point, requant=requant)


def _prepare16(graph: Graph, op: Op, input_, filter_, out) -> FullyConnectedParams:
    """The 16x8 form: TFLite Micro's int16 FullyConnected / FullyConnectedPerChannel."""
    require(op.options.weights_format == 0, op, "only the DEFAULT weights format is supported")
    check_activations(op, input_, out)
    check_filter(op, filter_)
    require(len(filter_.shape) == 2, op, "expects a constant 2-D [N, K] filter")
    channels, depth = filter_.shape
    require(len(out.shape) >= 1 and out.shape[-1] == channels, op,
            f"output's last dimension {out.shape[-1] if out.shape else None} != filter rows {channels}")
    rows = out.num_elements // channels
    require(input_.num_elements == rows * depth, op,
            f"input of {input_.num_elements} values is not {rows} rows of {depth}")
    bias, wide = bias16(graph, op, 2, channels, declared=op.options.get("quantized_bias_type", 0))
    if filter_.quant.per_channel:
        require(len(filter_.quant.scale) == channels and filter_.quant.axis == 0, op,
                "per-channel filter scales must be one per output channel (dimension 0)")
        requant = requantization16(op, input_, filter_, out, channels)
    else:
        product = input_.scale * filter_.quant.scale[0]
        require(product >= 0, op, "negative input x filter scale")
        check_bias_scale(op, product, tensor(graph, op, 2), out)
        requant = requantization16(op, input_, filter_, out, channels, product / out.scale)
    check_wide_shifts(op, requant, wide)
    return FullyConnectedParams(rows=rows, output_shape=out.shape, filter=filter_.data, bias=bias, input_offset=0,
                                output_offset=0, requant=requant, element=2, wide=wide)


def macs(params: FullyConnectedParams) -> int:
    channels, depth = params.filter.shape
    return params.rows * channels * depth


SPEC = OpSpec(KIND, kind_id=2, emit=emit, prepare=prepare, macs=macs, arity=((2, 3), 1, frozenset({2})),
              options="FullyConnectedOptions", activation_types=frozenset({"int16"}))
