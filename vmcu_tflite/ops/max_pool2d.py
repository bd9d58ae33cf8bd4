"""MAX_POOL_2D: int8 maximum over each window's in-bounds taps, then the activation clamp."""
from __future__ import annotations

from ..codegen.params.max_pool2d import emit
from ..graph import Graph, Op
from .average_pool2d import PoolParams, pool_access, prepare_pool
from .spec import ONE_INPUT, OpSpec

KIND = "MAX_POOL_2D"


def prepare(graph: Graph, op: Op) -> PoolParams:
    return prepare_pool(graph, op)


SPEC = OpSpec(KIND, kind_id=6, emit=emit, prepare=prepare, c_kernel="vmcu_max_pool2d_s8", access=pool_access,
              arity=ONE_INPUT, options="Pool2DOptions", options_required=True, activation_types=frozenset({"int16"}))
