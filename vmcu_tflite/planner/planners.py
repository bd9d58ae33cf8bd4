"""The memory planners by name, each returning a `Plan` for the same steps."""
from __future__ import annotations

import hashlib
import pickle
from typing import Sequence

from ..errors import UsageError
from ..graph import Graph
from ..plan import Plan
from ..steps import Step
from .tensor import plan_tensors
from .vmcu import plan_vmcu

PLANNERS = {"vmcu": plan_vmcu, "tensor": plan_tensors}


def make_plan(graph: Graph, steps: Sequence[Step], planner: str = "vmcu") -> Plan:
    if planner not in PLANNERS:
        raise UsageError(f"unknown planner '{planner}'; available: {', '.join(sorted(PLANNERS))}")
    return PLANNERS[planner](graph, steps)


class PlansOnce:
    """`make_plan` over one graph, each set of steps planned once.

    A compilation plans several trials (its chains with and without line rings, with frames pulled,
    with outputs pushed) that often end in the very steps it planned before. Planning is
    deterministic (the same steps give the same plan: tests/planner/test_vmcu_plans.py), so a
    repeat is looked up instead of solved again. Steps count as the same when their pickles are
    (every field, arrays by value): a streamed recurrent fixture's compilation planned the same 90
    steps three times, 10 of its 17 seconds."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._made: dict[tuple[str, bytes], Plan] = {}

    def __call__(self, steps: Sequence[Step], planner: str = "vmcu") -> Plan:
        key = (planner, hashlib.sha256(pickle.dumps(tuple(steps))).digest())
        if key not in self._made:
            self._made[key] = make_plan(self.graph, steps, planner)
        return self._made[key]
