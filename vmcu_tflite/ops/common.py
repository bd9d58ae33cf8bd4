"""Helpers shared by the ops' prepare functions: padding, per-channel requantization, activations.

A prepare function turns one `Op` of a `Graph` into a frozen params object that holds everything
the kernel needs at run time (TFLite Micro computes the same in its kernels' Prepare). The
reference interpreter and the C code generator both consume these params.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..graph import Graph, Op, Tensor
from ..quant import activation_range, quantize_multiplier

PADDING_SAME, PADDING_VALID = 0, 1
INT16_MAX = 32767  # TFLite's kernel params hold strides, dilations and paddings as int16


@dataclass(frozen=True)
class Requantization:
    """Per-output-channel Q31 multipliers and shifts plus the clamp of the fused activation."""

    multiplier: tuple[int, ...]
    shift: tuple[int, ...]
    act_min: int
    act_max: int


def window_padding(in_size: int, out_size: int, filter_size: int, stride: int, dilation: int,
                   padding: int, folded: tuple[int, int] = (0, 0)) -> int:
    """Zeros implicitly added before the first input row/column (TFLite's ComputePaddingWithOffset).

    `folded` is an explicit (before, after) PAD that a pass folded into this op: it is added on top
    of what SAME padding computes over the already padded input.
    """
    padded = in_size + folded[0] + folded[1]
    if padding == PADDING_SAME:
        effective = (filter_size - 1) * dilation + 1
        total = max((out_size - 1) * stride + effective - padded, 0)
        return folded[0] + total // 2
    return folded[0]


def output_size(in_size: int, filter_size: int, stride: int, dilation: int, padding: int,
                folded: tuple[int, int] = (0, 0)) -> int:
    """Spatial output size as TFLite computes it, over the input plus any folded PAD."""
    padded = in_size + folded[0] + folded[1]
    effective = (filter_size - 1) * dilation + 1
    if padding == PADDING_SAME:
        return (padded + stride - 1) // stride
    return (padded + stride - effective) // stride


def tensor(graph: Graph, op: Op, position: int) -> Tensor | None:
    """The op's input at `position`, or None when it is omitted (-1) or absent."""
    if position >= len(op.inputs) or op.inputs[position] < 0:
        return None
    return graph.tensors[op.inputs[position]]


def output(graph: Graph, op: Op, position: int = 0) -> Tensor:
    return graph.tensors[op.outputs[position]]


def require(condition: bool, op: Op, message: str) -> None:
    """Refuse an op configuration the kernels do not implement, naming the op."""
    if not condition:
        raise ModelError(f"operator {op.kind} at index {op.index}: {message}")


MAX_LEFT_SHIFT = 30  # TFLite multiplies by 1 << shift in int32: 31 and above overflow the shift itself


def output_multiplier(op: Op, real: float) -> tuple[int, int]:
    """quantize_multiplier(real), refusing a multiplier whose left shift TFLite cannot apply (an
    output scale tiny against its inputs' is a corrupt model, not a layer to run)."""
    multiplier, shift = quantize_multiplier(real)
    require(shift <= MAX_LEFT_SHIFT, op, f"the rescale from input to output scale ({real:.3g}) needs a left "
                                         f"shift of {shift}; TFLite applies at most {MAX_LEFT_SHIFT}")
    return multiplier, shift


def fused_activation(op: Op, out: Tensor) -> tuple[int, int]:
    """The clamp of the op's fused activation in the output's int8 domain (TFLite's
    CalculateActivationRangeQuantized, which refuses a scale too small to quantize 6.0)."""
    act = op.options.fused_activation_function
    require(act in (0, 1, 2, 3), op, f"fused activation {act} is not supported")
    try:
        return activation_range(act, out.scale, out.zero_point)
    except ValueError:
        require(False, op, f"output scale {out.scale:g} is too small for its fused activation's bounds")


def requantization(op: Op, input_: Tensor, filter_: Tensor, output_: Tensor, channels: int) -> Requantization:
    """Per-channel output multipliers as TFLite's PopulateConvolutionQuantizationParams."""
    for name, t in (("input", input_), ("filter", filter_), ("output", output_)):
        require(t.dtype == "int8" and t.quant is not None, op, f"the {name} must be quantized int8")
    require(all(z == 0 for z in filter_.quant.zero_point), op, "filter zero points must be 0")
    scales = filter_.quant.scale
    require(len(scales) in (1, channels), op, f"{len(scales)} filter scales for {channels} channels")
    pairs = [output_multiplier(op, input_.scale * scales[c if len(scales) > 1 else 0] / output_.scale)
             for c in range(channels)]
    act_min, act_max = fused_activation(op, output_)
    return Requantization(multiplier=tuple(m for m, _ in pairs), shift=tuple(s for _, s in pairs),
                          act_min=act_min, act_max=act_max)


def bias_values(graph: Graph, op: Op, position: int, channels: int) -> np.ndarray:
    """The int32 bias, or zeros when the model has none."""
    bias = tensor(graph, op, position)
    if bias is None:
        return np.zeros(channels, dtype=np.int32)
    require(bias.dtype == "int32" and bias.is_constant, op, "bias must be a constant int32 tensor")
    require(bias.num_elements == channels, op, f"bias has {bias.num_elements} values for {channels} channels")
    return bias.data.reshape(-1)


def constant(graph: Graph, op: Op, position: int, what: str) -> np.ndarray:
    """A constant input (weights, axes, shapes); a non-constant one is not supported."""
    t = tensor(graph, op, position)
    require(t is not None and t.is_constant, op, f"{what} must be a constant tensor")
    return t.data


def constant_inputs(graph: Graph, op: Op, positions: range | None = None) -> tuple[np.ndarray | None, ...]:
    """Per input position: the constant's data, or None for an activation the kernel receives.

    For ops whose operands may be either (ADD's second addend, one CONCATENATION input), the
    constants ride in the params and the kernel's `run` gets only the activations, in order.
    """
    positions = range(len(op.inputs)) if positions is None else positions
    result = []
    for position in positions:
        t = tensor(graph, op, position)
        require(t is not None, op, f"input {position} is missing")
        result.append(t.data if t.is_constant else None)
    return tuple(result)
