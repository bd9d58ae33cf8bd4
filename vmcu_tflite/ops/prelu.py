"""PRELU: x >= 0 rescaled by input/output scale, else x * alpha rescaled by input * alpha /
output scale, alpha broadcast against x up to 4-D (TFLite Micro's CalculatePreluParams and
BroadcastPrelu4DSlow). alpha is usually a constant per channel."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.prelu import emit
from ..graph import Graph, Op
from ..planner.access import same_shape
from .add import binary_tensors
from .common import constant_inputs, output_multiplier, require
from .int16_common import is_int16
from .int16_prelu import Int16PreluParams, prepare_int16
from .spec import TWO_INPUTS, OpSpec

KIND = "PRELU"
MAX_RANK = 4


@dataclass(frozen=True, eq=False)
class PreluParams:
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # input, alpha: constant data, or None for an activation
    input_offset: int  # -zero point
    alpha_offset: int
    output_offset: int  # output zero point
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int


def prepare(graph: Graph, op: Op) -> PreluParams | Int16PreluParams:
    if is_int16(graph, op):  # an INT16_PRELU step
        return prepare_int16(graph, op)
    x, alpha, out = binary_tensors(graph, op, MAX_RANK)
    require(out.shape == x.shape, op, f"output shape {out.shape} differs from input shape {x.shape}")
    m1, s1 = output_multiplier(op, float(x.scale) / float(out.scale))
    m2, s2 = output_multiplier(op, float(x.scale) * float(alpha.scale) / float(out.scale))
    return PreluParams(output_shape=out.shape, constants=constant_inputs(graph, op), input_offset=-x.zero_point,
                       alpha_offset=-alpha.zero_point, output_offset=out.zero_point,
                       identity_multiplier=m1, identity_shift=s1, alpha_multiplier=m2, alpha_shift=s2)


SPEC = OpSpec(KIND, kind_id=25, emit=emit, prepare=prepare, c_kernel="vmcu_prelu_s8", access=same_shape,
              arity=TWO_INPUTS, activation_types=frozenset({"int16"}))
