"""ABS: |input - zero point|, rescaled only when the input and output scales differ
(TFLite Micro's PrepareAbsRsqrt and AbsEvalQuantized)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import Graph, Op
from .common import output_multiplier
from .unary import lookup_spec, unary_tensors

KIND = "ABS"


@dataclass(frozen=True)
class AbsParams:
    input_zero_point: int
    output_zero_point: int
    rescale: bool
    multiplier: int
    shift: int


def prepare(graph: Graph, op: Op) -> AbsParams:
    input_, out = unary_tensors(graph, op)
    rescale = np.float32(input_.scale) != np.float32(out.scale)
    ratio = float(np.float32(input_.scale)) / float(np.float32(out.scale))  # in double, as SetAbsOutputMultiplier
    multiplier, shift = output_multiplier(op, ratio) if rescale else (0, 0)
    return AbsParams(input_zero_point=input_.zero_point, output_zero_point=out.zero_point, rescale=bool(rescale),
                     multiplier=multiplier, shift=shift)


SPEC = lookup_spec(KIND, 18, prepare)
