"""MAX_POOL_2D (not implemented yet)."""
from __future__ import annotations

from ..graph import Graph, Op
from .common import require

KIND = "MAX_POOL_2D"


def prepare(graph: Graph, op: Op):
    require(False, op, "not implemented yet")
