"""MEAN: int8 average over constant axes, with input and output quantization that may differ.

As TFLite Micro's QuantizedMeanOrSum: an int32 sum per output, minus input zero point x count,
then one MultiplyByQuantizedMultiplier whose multiplier folds in 1 / count. The fold is computed
here once: the Q31 multiplier of input scale / output scale is shifted left by
s = min(floor(log2(count)), 32, 31 + shift), divided by count (truncating) and the shift lowered by s.
An int16 MEAN (a 16x8 model's) is the same arithmetic clamped to int16 (TFLite Micro's
QuantizedMeanOrSum<int16_t>): a MEAN_S16 step (`mean_s16`), streamed element by element (`mean16_access`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.mean import emit
from ..graph import Graph, Op
from ..planner.access import AccessPattern, channel_reduction
from ..quant import quantize_multiplier
from .common import constant, output, output_multiplier, require, tensor
from .spec import TWO_INPUTS, OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "MEAN"


@dataclass(frozen=True)
class MeanParams:
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    axes: tuple[int, ...]  # reduced input dimensions, non-negative, sorted, without duplicates
    count: int  # input values averaged into each output value
    input_zero_point: int
    output_zero_point: int
    multiplier: int  # Q31, 1 / count included
    shift: int  # power-of-two exponent (negative: right shift)


@dataclass(frozen=True)
class MeanS16Params(MeanParams):
    """An int16 MEAN: its values and zero points int16, its step kind."""

    step_kind: str = "MEAN_S16"


# Values an int16 MEAN's output sums at most: |sum - zero point x count| <= 65535 x this, shifted left
# by the output shift, stays in int32 (TFLite sums in int32)
MAX_REDUCED_S16 = 1 << 15


def mean_multiplier(real_multiplier: float, count: int) -> tuple[int, int]:
    """The Q31 multiplier and exponent of real_multiplier / count, the integer way TFLite Micro does it."""
    multiplier, shift = quantize_multiplier(real_multiplier)
    if count <= 0:
        return multiplier, shift
    s = min(count.bit_length() - 1, 32, 31 + shift)
    return (multiplier << s) // count, shift - s


def reduced_axes(graph: Graph, op: Op) -> tuple[int, ...]:
    """A reduction's constant axes, resolved and sorted without duplicates, with its output
    holding one value per kept position (MEAN's and REDUCE_MAX's)."""
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects 2 inputs (data, axes) and 1 output")
    axis_tensor = tensor(graph, op, 1)
    require(axis_tensor is not None and axis_tensor.dtype == "int32", op, "axes must be an int32 tensor")
    raw_axes = [int(a) for a in constant(graph, op, 1, "axes").reshape(-1)]
    rank = len(input_.shape)
    axes: list[int] = []
    for a in raw_axes:
        resolved = a + rank if a < 0 else a
        require(0 <= resolved < rank, op, f"axis {a} is out of range for a {rank}-D input")
        if resolved not in axes:
            axes.append(resolved)
    axes.sort()
    kept = [d for i, d in enumerate(input_.shape) if i not in axes]
    expected = int(np.prod(kept, dtype=np.int64))
    require(out.num_elements == expected, op,
            f"output shape {out.shape} does not hold the {expected} values of the reduction")
    return tuple(axes)


def prepare(graph: Graph, op: Op) -> MeanParams:
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in ("int8", "int16") and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    require(all(t.quant is not None and not t.quant.per_channel for t in (input_, out)), op,
            "the input and the output need a per-tensor scale")
    axes = reduced_axes(graph, op)
    count = int(np.prod([input_.shape[a] for a in axes], dtype=np.int64))
    output_multiplier(op, input_.scale / out.scale)  # refuses a rescale TFLite cannot shift
    multiplier, shift = mean_multiplier(input_.scale / out.scale, count)
    if input_.dtype == "int16":
        require(count <= MAX_REDUCED_S16 >> max(shift, 0), op,
                f"an int16 mean of {count} values with output shift {shift} could overflow its int32 sum")
        return MeanS16Params(input_shape=input_.shape, output_shape=out.shape, axes=axes, count=count,
                             input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                             multiplier=multiplier, shift=shift)
    return MeanParams(input_shape=input_.shape, output_shape=out.shape, axes=axes, count=count,
                      input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                      multiplier=multiplier, shift=shift)


def mean_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    p = step.params
    if len(p.input_shape) != 4 or p.input_shape[0] != 1 or p.axes != (1, 2):
        return None
    _, h, w, c = p.input_shape
    return channel_reduction(h * w, c, segment)


def mean16_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """The int16 kernel: output element by output element (whatever the planner's segment), each
    summed over its reduced positions first. Streams when only the last dimension is kept (besides
    dimensions of 1): output c is channel c of every position ([1, H, W, C] over H and W, [1, P, C] over P)."""
    p = step.params
    shape = p.input_shape
    if len(shape) < 2 or len(shape) - 1 in p.axes or any(d != 1 for i, d in enumerate(shape[:-1]) if i not in p.axes):
        return None
    return channel_reduction(p.count, shape[-1], 2, element=2)


SPEC = OpSpec(KIND, kind_id=7, emit=emit, prepare=prepare, c_kernel="vmcu_mean_s8", access=mean_access,
              arity=TWO_INPUTS, options="ReducerOptions", activation_types=frozenset({"int16"}))
