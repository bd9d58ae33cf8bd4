"""RELU: int8 rescale from the input to the output scale (their ratio in double), clamped at the output's zero
(TFLite Micro's CalculateReluOpData and ReluQuantized)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import Graph, Op
from ..quant import quantize
from .common import output_multiplier
from .int16_common import is_int16
from .int16_unary import Int16UnaryParams, prepare_int16
from .unary import lookup_spec, unary_tensors

KIND = "RELU"


@dataclass(frozen=True)
class ReluParams:
    input_zero_point: int
    output_zero_point: int
    multiplier: int
    shift: int
    act_min: int
    act_max: int


def prepare(graph: Graph, op: Op) -> ReluParams | Int16UnaryParams:
    if is_int16(graph, op):  # an INT16_UNARY step
        return prepare_int16(graph, op, KIND)
    input_, out = unary_tensors(graph, op)
    # the float32 scales divided in double, as CalculateReluOpData divides them (a float32 quotient
    # rounds the multiplier's low bits elsewhere: 2/3 scales give 1.5 exactly instead of just below)
    multiplier, shift = output_multiplier(op, float(np.float32(input_.scale)) / float(np.float32(out.scale)))
    return ReluParams(input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                      multiplier=multiplier, shift=shift,
                      act_min=max(-128, quantize(0.0, out.scale, out.zero_point)), act_max=127)


SPEC = lookup_spec(KIND, 16, prepare, activation_types=frozenset({"int16"}))
