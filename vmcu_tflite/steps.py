"""Steps: the kernel invocations a plan schedules, in execution order.

A step is one kernel call with its prepared params. Its `inputs` are the activation tensors it
reads (constants live in flash, inside the params) and `ops` the TFLite operators it implements,
the folded ones included.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import ops as op_registry
from .errors import ModelError
from .graph import Graph


@dataclass(frozen=True, eq=False)
class Step:
    index: int
    kernel: str
    ops: tuple[int, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    params: Any
    macs: int


def build_steps(graph: Graph) -> tuple[Step, ...]:
    """One step per remaining op, params prepared once (TFLite Micro's Prepare, done ahead of time)."""
    steps = []
    for position, op in enumerate(graph.ops):
        if not graph.activations(op):
            raise ModelError(f"operator {op.kind} at index {op.index} reads only constants; fold it into a "
                             "constant before converting (TFLite's converter does by default)")
        params = op_registry.prepare(graph, op)
        steps.append(Step(index=position, kernel=op.kind, ops=tuple(sorted((op.index,) + op.folded)),
                          inputs=graph.activations(op), outputs=op.outputs, params=params,
                          macs=op_registry.macs(op.kind, params)))
    return tuple(steps)
