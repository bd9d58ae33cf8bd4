"""DIV: int32 only (TFLite Micro's int32 DIV, `int32_binary`); its int8 and float DIV are not
supported here."""
from __future__ import annotations

from ..graph import Graph, Op
from .common import require
from .int32_binary import Int32BinaryParams, is_int32, prepare_int32
from .spec import TWO_INPUTS, OpSpec

KIND = "DIV"


def prepare(graph: Graph, op: Op) -> Int32BinaryParams:
    require(is_int32(graph, op), op, "only int32 DIV is supported")
    return prepare_int32(graph, op, KIND)


SPEC = OpSpec(KIND, kind_id=None, emit=None, prepare=prepare, arity=TWO_INPUTS, options="DivOptions",
              activation_types=frozenset({"int32"}))
