"""MAX_POOL_2D: int8 maximum over each window's in-bounds taps, then the activation clamp."""
from __future__ import annotations

from ..graph import Graph, Op
from .average_pool2d import PoolParams, prepare_pool

KIND = "MAX_POOL_2D"


def prepare(graph: Graph, op: Op) -> PoolParams:
    return prepare_pool(graph, op)
