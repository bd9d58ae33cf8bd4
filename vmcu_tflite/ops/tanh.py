"""TANH: int8 -> int8 through gemmlowp's fixed-point tanh (TFLite Micro's int8 path).

Prepare is LOGISTIC's: a Q4.27 input multiplier from frexp and the saturation radius. TFLite
Micro does not look at the output's quantization: the result is on the 1/128 grid.
"""
from __future__ import annotations

from ..graph import Graph, Op
from .int16_common import is_int16
from .int16_sigmoid import Int16SigmoidParams, prepare_int16
from .logistic import LogisticParams, input_scaling
from .unary import lookup_spec, unary_tensors

KIND = "TANH"


def prepare(graph: Graph, op: Op) -> LogisticParams | Int16SigmoidParams:
    if is_int16(graph, op):  # an INT16_SIGMOID step
        return prepare_int16(graph, op, KIND)
    input_, _ = unary_tensors(graph, op)
    return input_scaling(op, input_)


SPEC = lookup_spec(KIND, 20, prepare, activation_types=frozenset({"int16"}))
