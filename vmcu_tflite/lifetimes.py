"""When each activation buffer is live, in steps.

A buffer is the storage of one tensor and of every alias of it. It is live from the step that
writes it (step 0 for a graph input) to the last step that reads it (the last step for a graph
output), both included: within a step, inputs and outputs coexist.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .graph import Graph
from .steps import Step


@dataclass(frozen=True)
class Buffer:
    tensor: int  # the storage tensor (aliases resolved)
    size: int  # bytes
    first: int  # first step it is live in
    last: int  # last step it is live in


def buffer_lifetimes(graph: Graph, steps: Sequence[Step]) -> dict[int, Buffer]:
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    end = max(len(steps) - 1, 0)
    for port in graph.inputs:
        t = graph.storage_of(port.tensor)
        first[t], last[t] = 0, 0
    for step in steps:
        for t in map(graph.storage_of, step.outputs):
            first.setdefault(t, step.index)
            last[t] = max(last.get(t, step.index), step.index)
        for t in map(graph.storage_of, step.inputs):
            last[t] = max(last.get(t, step.index), step.index)
    for port in graph.outputs:
        t = graph.storage_of(port.tensor)
        first.setdefault(t, end)
        last[t] = end
    return {t: Buffer(t, graph.tensors[t].num_bytes, first[t], last[t]) for t in sorted(first)}

