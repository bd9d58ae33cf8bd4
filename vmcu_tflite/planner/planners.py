"""The memory planners by name, each returning a `Plan` for the same steps."""
from __future__ import annotations

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
