"""SPLIT_V: SPLIT with parts of given sizes (input, size_splits, axis); each output a slice."""
from __future__ import annotations

from ..codegen.params.strided_copy import emit_slice
from ..graph import Graph, Op
from .spec import OpSpec
from .split import part_of
from .strided_slice import SliceParams

KIND = "SPLIT_V"


def prepare(graph: Graph, op: Op) -> SliceParams:
    return part_of(graph, op, data_position=0, axis_position=2)


SPEC = OpSpec(KIND, kind_id=28, emit=emit_slice, prepare=prepare, c_kernel="vmcu_strided_copy_s8",
              arity=((3, 3), None, frozenset()), options="SplitVOptions",
              activation_types=frozenset({"int16"}))
