"""SUB: ADD's arithmetic with the second scaled input subtracted (TFLite Micro's
CalculateOpDataSub computes exactly ADD's params). Its broadcasting walks at most 5-D."""
from __future__ import annotations

from ..codegen.params.add import emit_sub
from ..graph import Graph, Op
from ..planner.access import same_shape
from . import add
from .spec import TWO_INPUTS, OpSpec

KIND = "SUB"
MAX_RANK = 5


def prepare(graph: Graph, op: Op) -> add.AddParams:
    return add.prepare(graph, op, MAX_RANK)


SPEC = OpSpec(KIND, kind_id=22, emit=emit_sub, prepare=prepare, c_kernel="vmcu_sub_s8", access=same_shape,
              arity=TWO_INPUTS, options="SubOptions", activation_types=frozenset({"int16"}))
