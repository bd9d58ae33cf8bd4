"""LEAKY_RELU: identity and alpha multipliers from float32 scales, divided in double as TFLite Micro's
build computes CalculateOpDataLeakyRelu; alpha may be negative or above one."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import Graph, Op
from .common import output_multiplier, require
from .int16_common import is_int16
from .int16_unary import Int16UnaryParams, prepare_int16
from .unary import lookup_spec, unary_tensors

KIND = "LEAKY_RELU"


@dataclass(frozen=True)
class LeakyReluParams:
    input_zero_point: int
    output_zero_point: int
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int


def prepare(graph: Graph, op: Op) -> LeakyReluParams | Int16UnaryParams:
    if is_int16(graph, op):  # an INT16_UNARY step
        return prepare_int16(graph, op, KIND, float(np.float32(op.options.alpha)))
    input_, out = unary_tensors(graph, op)
    alpha = np.float32(op.options.alpha)
    require(np.isfinite(alpha), op, f"alpha {alpha} is not finite")
    in_scale, out_scale = np.float32(input_.scale), np.float32(out.scale)
    # in double, as TFLite Micro's build computes them: the float32 product differs by an ulp (alpha 1.5),
    # and the float32 quotient rounds a tie the other way (scales 0.026141655 / 0.049819697, input 182)
    alpha_multiplier, alpha_shift = output_multiplier(op, float(in_scale) * float(alpha) / float(out_scale))
    identity_multiplier, identity_shift = output_multiplier(op, float(in_scale) / float(out_scale))
    require(alpha_multiplier != -(1 << 31), op, f"alpha {alpha:g} rounds to a multiplier of -1")
    return LeakyReluParams(input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                           identity_multiplier=identity_multiplier, identity_shift=identity_shift,
                           alpha_multiplier=alpha_multiplier, alpha_shift=alpha_shift)


SPEC = lookup_spec(KIND, 19, prepare, options="LeakyReluOptions", options_required=True,
                   activation_types=frozenset({"int16"}))
