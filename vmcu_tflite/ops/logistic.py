"""LOGISTIC: int8 -> int8 sigmoid through gemmlowp's fixed-point logistic (TFLite Micro's int8 path).

TFLite Micro only checks the output zero point (-128); the kernel produces values on the 1/256
grid whatever the output scale says. Prepare builds the Q4.27 input multiplier with frexp (no
renormalisation when the significand rounds up to 1) and the saturation radius.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..codegen.params.lookup import emit
from ..graph import Graph, Op, Tensor
from ..planner.access import same_shape
from ..quant import calculate_input_radius, tflite_round
from .common import output, require, tensor
from .int16_common import is_int16
from .int16_sigmoid import Int16SigmoidParams, prepare_int16
from .spec import ONE_INPUT, OpSpec

KIND = "LOGISTIC"
INPUT_INTEGER_BITS = 4


@dataclass(frozen=True)
class LogisticParams:
    input_zero_point: int
    input_range_radius: int
    input_multiplier: int
    input_left_shift: int


def prepare(graph: Graph, op: Op) -> LogisticParams | Int16SigmoidParams:
    if is_int16(graph, op):  # an INT16_SIGMOID step
        return prepare_int16(graph, op, KIND)
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype == "int8" and out.dtype == "int8", op,
            f"{input_.dtype} -> {out.dtype} is not supported (int8 -> int8 only)")
    require(input_.shape == out.shape, op, f"input shape {input_.shape} differs from output shape {out.shape}")
    require(input_.quant is not None and not input_.quant.per_channel, op, "the input needs a per-tensor scale")
    require(out.quant is not None and out.zero_point == -128, op,
            f"the output zero point must be -128 (has {out.quant.zero_point[0] if out.quant else None})")
    return input_scaling(op, input_)


def input_scaling(op: Op, input_: Tensor) -> LogisticParams:
    """The Q4.27 input multiplier (frexp, no renormalisation) and saturation radius; TANH's too."""
    real = input_.scale * float(1 << (31 - INPUT_INTEGER_BITS))
    significand, left_shift = math.frexp(real)
    # Smaller scales would need a right shift of the input, which TFLite does not implement.
    require(left_shift >= 0, op, f"input scale {input_.scale:g} is too small")
    multiplier = int(tflite_round(significand * (1 << 31)))
    if multiplier == 1 << 31:  # TFLite's cast to int32 wraps this to INT32_MIN
        multiplier = -(1 << 31)
    # Inputs inside the radius stay below 15 * 2**27 after the shift; beyond 62 the radius itself
    # would be computed with an undefined shift.
    require(left_shift <= 62, op, f"input scale {input_.scale:g} is too large")
    return LogisticParams(input_zero_point=input_.zero_point,
                          input_range_radius=calculate_input_radius(INPUT_INTEGER_BITS, left_shift, 31),
                          input_multiplier=multiplier, input_left_shift=left_shift)


SPEC = OpSpec(KIND, kind_id=11, emit=emit, prepare=prepare, c_kernel="vmcu_lookup_s8", access=same_shape,
              arity=ONE_INPUT, activation_types=frozenset({"int16"}))
