"""RELU6: TFLite Micro clamps the raw int8 input between the input's quantized 0 and 6 and
ignores the output's quantization (Relu6Prepare, Relu6Quantized)."""
from __future__ import annotations

from dataclasses import dataclass

from ..graph import Graph, Op
from ..quant import quantize
from .common import require
from .int16_common import is_int16
from .int16_unary import Int16UnaryParams, prepare_int16
from .unary import lookup_spec, unary_tensors

KIND = "RELU6"


@dataclass(frozen=True)
class Relu6Params:
    lower: int
    upper: int


def prepare(graph: Graph, op: Op) -> Relu6Params | Int16UnaryParams:
    if is_int16(graph, op):  # an INT16_UNARY step
        return prepare_int16(graph, op, KIND)
    input_, _ = unary_tensors(graph, op)
    try:
        six = quantize(6.0, input_.scale, input_.zero_point)
    except ValueError:
        six = None
    require(six is not None, op, f"input scale {input_.scale:g} is too small to represent 6")
    return Relu6Params(lower=input_.zero_point, upper=min(127, max(-128, six)))


SPEC = lookup_spec(KIND, 17, prepare, activation_types=frozenset({"int16"}))
