"""int16 SOFTMAX (16x8 models): an INT16_SOFTMAX step, as TFLite Micro runs it (softmax_common's
Prepare, reference_ops SoftmaxInt16).

Per row of the last axis: each difference to the row's maximum, scaled so that [-65535, 0] spans
[-10, 0] (QuantizeMultiplier of input_scale * beta / (10 / 65535)), is looked up in an exp table;
the exps are summed in int32, the sum normalised to [1, 2) and looked up in a 1/(1+x) table, and
each exp times that reciprocal is the Q0.15 output. Both tables are 513 int16 values read with
9 bits of index and 7 of linear interpolation; TFLite Micro builds them in its Prepare with
LUTPopulate in float32 arithmetic, this module builds the same values at conversion (`lut16`) and
the step keeps them in flash.

TFLite Micro requires zero points of 0 and an output scale of 1/32768 (within 0.1 %).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.int16_softmax import emit
from ..graph import Graph, Op
from ..planner.access import AccessPattern, affine
from ..quant import quantize_multiplier, tflite_round
from .common import output, require, tensor
from .int16_common import check_int16
from .spec import OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "INT16_SOFTMAX"
MAX_DEPTH = 65536  # the int32 sum of a row's exps (each at most 32767) stays below 2**31
_F = np.float32


@dataclass(frozen=True, eq=False)
class Int16SoftmaxParams:
    outer: int  # rows
    depth: int  # elements of the last axis
    input_multiplier: int
    input_shift: int  # MultiplyByQuantizedMultiplier's shift, -31..14
    exp_table: tuple[int, ...]  # 513 int16
    reciprocal_table: tuple[int, ...]  # 513 int16: 1 / (1 + x)
    step_kind: str = KIND


def _round(x: np.float32) -> np.float32:
    return _F(tflite_round(float(x)))


def _exp(x: np.float32) -> np.float32:
    """expf, correctly rounded (the exact exp rounded once to float32)."""
    return _F(math.exp(float(x)))


def _one_over_one_plus(x: np.float32) -> np.float32:
    return _F(1.0) / (_F(1.0) + x)


def lut16(input_scale: float, input_zero_point: int, output_scale: float, transform) -> tuple[int, ...]:
    """TFLite's LUTPopulate<int16_t> (float32): 512 samples of `transform` over the int16 input range,
    each lowered by half the (rounded) error linear interpolation makes at its interval's middle,
    and the value at the end; outputs at `output_scale`, zero point 0, saturated to int16."""
    with np.errstate(over="ignore"):
        scale_in, scale_out = _F(input_scale), _F(output_scale)
        input_min = scale_in * _F(-32768 - input_zero_point)
        input_max = scale_in * _F(32767 - input_zero_point)
        output_min, output_max = scale_out * _F(-32768), scale_out * _F(32767)
        step = (input_max - input_min) / _F(512)
        half_step = step / _F(2)
        inv = _F(65536) / (output_max - output_min)
        values = []
        for i in range(512):
            val = transform(input_min + _F(i) * step)
            val_mid = transform(input_min + _F(i) * step + half_step)
            val_next = transform(input_min + _F(i + 1) * step)
            sample = _round(val * inv)
            mid_interp = _round((val_next * inv + _round(val * inv)) / _F(2))
            bias = _round((mid_interp - _round(val_mid * inv)) / _F(2))
            values.append(int(min(max(sample - bias, _F(-32768)), _F(32767))))
        values.append(int(min(max(_round(transform(input_max) * inv), _F(-32768)), _F(32767))))
    return tuple(values)


def softmax_tables() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The exp table over [-10, 0] and the 1/(1+x) table over [0, 1], as softmax_common builds them."""
    span = _F(65535)  # int16 max - min, converted to float
    exp_table = lut16(float(_F(10.0) / span), 32767, float(_F(2.0) / span), _exp)
    reciprocal = lut16(float(_F(1.0) / span), -32768, float(_F(2.0) / span), _one_over_one_plus)
    return exp_table, reciprocal


def prepare_int16(graph: Graph, op: Op) -> Int16SoftmaxParams:
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_ is not None, op, "the input is missing")
    check_int16(op, (("input", input_), ("output", out)), zero_point_zero=True)
    require(len(input_.shape) >= 1 and input_.shape == out.shape, op,
            f"input shape {input_.shape} and output shape {out.shape} must be equal and at least 1-D")
    require(abs(out.scale - 1.0 / 32768) <= 0.001 / 32768, op,
            f"the output scale must be 1/32768 (has {out.scale:g}), as TFLite Micro's int16 SOFTMAX requires")
    depth = int(input_.shape[-1])
    require(depth <= MAX_DEPTH, op, f"a row of {depth} elements could overflow the int32 sum of its exps")
    beta = float(np.float32(op.options.beta))
    require(math.isfinite(beta), op, f"beta {beta:g} is not a finite number")  # TFLite's multiplier is undefined
    real = input_.scale * beta / (10.0 / 65535.0)
    multiplier, shift = quantize_multiplier(real)
    # a difference (down to -65535) is shifted left by `shift` in int32 first
    require(shift <= 14, op, f"input scale {input_.scale:g} times beta {beta:g} is too large")
    exp_table, reciprocal = softmax_tables()
    return Int16SoftmaxParams(outer=input_.num_elements // max(depth, 1), depth=depth, input_multiplier=multiplier,
                              input_shift=shift, exp_table=exp_table, reciprocal_table=reciprocal)


def row_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """Iteration (row, c): the kernel reads the whole row at c = 0 (its maximum), then reads element c
    again and writes output element c (the sum's pass rewrites the output row only); whatever the
    planner's segment (no segment buffer). Input bytes below element c of the row stay needed
    until iteration (row, c) has read them."""
    y = graph.tensors[step.outputs[0]]
    outer, depth = y.num_elements // y.shape[-1], y.shape[-1]
    row = 2 * depth
    return AccessPattern(dims=(outer, depth), write_lo=affine((row, 2)), write_hi=affine((row, 2), 2),
                         read_lo=affine((row, 2)), read_hi=affine((row, 0), row))


SPEC = OpSpec(KIND, kind_id=72, emit=emit, c_kernel="vmcu_softmax_s16", access=row_access)
