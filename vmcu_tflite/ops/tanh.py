"""TANH: int8 -> int8 through gemmlowp's fixed-point tanh (TFLite Micro's int8 path).

Prepare is LOGISTIC's: a Q4.27 input multiplier from frexp and the saturation radius. TFLite
Micro does not look at the output's quantization: the result is on the 1/128 grid.
"""
from __future__ import annotations

from ..graph import Graph, Op
from .logistic import LogisticParams, input_scaling
from .unary import lookup_spec, unary_tensors

KIND = "TANH"


def prepare(graph: Graph, op: Op) -> LogisticParams:
    input_, _ = unary_tensors(graph, op)
    return input_scaling(op, input_)


SPEC = lookup_spec(KIND, 20, prepare)
