"""Compare a run of the reference interpreter with TFLite Micro, tensor by tensor.

When outputs differ, the useful answer is the first tensor (in execution order) whose values
differ: the step that produced it is the one to look at.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from vmcu_tflite.pipeline import Program

from .boundary import from_pool
from .interpreter import Result
from vmcu_tflite.oracle import oracle_name, run_tflm


@dataclass(frozen=True)
class Divergence:
    tensor: int
    name: str
    where: str  # "step 5 (CONV_2D, TFLite op 11)" or "output 0"
    differing: int
    total: int
    first_index: tuple[int, ...]
    ours: object
    theirs: object
    oracle: str = "TFLite Micro"

    def __str__(self) -> str:
        return (f"first diverging tensor: {self.tensor} '{self.name}' ({self.where}): {self.differing} of "
                f"{self.total} values differ; first at {self.first_index}: ours {self.ours}, "
                f"{self.oracle} {self.theirs}")


def _differing(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Indices whose bit patterns differ (floats must match exactly too)."""
    bits = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[mine.dtype.itemsize]
    return np.argwhere(mine.view(bits) != theirs.view(bits))


def _unwritten_by_tflm(step, graph, unwritten: dict) -> np.ndarray | None:
    """Which elements of the step's output TFLite Micro leaves as its arena had them (True), or None
    when it writes them all: SignalEnergy writes only the bins [start, end) (here the others are 0),
    and a CAST of such a tensor carries the same holes. A model reads only the written bins (micro_speech
    slices them out); any other step that reads a hole makes a difference that is reported."""
    if step.kernel == "SignalEnergy":
        holes = np.ones(graph.tensors[step.outputs[0]].num_elements, dtype=bool)
        holes[step.params.start:step.params.end] = False
        return holes
    if step.kernel == "CAST" and step.inputs[0] in unwritten:
        return unwritten[step.inputs[0]]
    return None


def first_divergence(model: bytes, program: Program, inputs: Sequence[np.ndarray], ours: Result,
                     theirs: tuple | None = None) -> Divergence | None:
    """None when every recorded tensor and every output is bit-identical to the oracle's (TFLite
    Micro's, or LiteRT's for operators it lacks): `theirs`, its (outputs, tensors) for this run
    when the caller ran a sequence, else one run of it on `inputs`."""
    graph = program.graph
    outputs, inner = theirs if theirs is not None else run_tflm(model, inputs, len(graph.outputs), tensors=ours.order)
    oracle = oracle_name(model)
    producer = {s.outputs[0]: s for s in program.steps}
    candidates = [(t, ours.tensors[t], inner[t], f"step {producer[t].index} ({producer[t].kernel}, TFLite op "
                   f"{', '.join(map(str, producer[t].ops))})") for t in ours.order]
    candidates += [(p.tensor, mine, theirs, f"output {i}")
                   for i, (p, mine, theirs) in enumerate(zip(graph.outputs, ours.outputs, outputs))]
    boundary = {p.tensor: p for p in graph.outputs}
    unwritten: dict[int, np.ndarray] = {}
    for t, mine, theirs, where in candidates:
        mine, theirs = np.asarray(mine), np.asarray(theirs)
        holes = _unwritten_by_tflm(producer[t], graph, unwritten) if t in producer else None
        if holes is not None and mine.shape == theirs.shape and mine.dtype == theirs.dtype:
            unwritten[t] = holes
            theirs = np.where(holes.reshape(mine.shape), mine, theirs)
        if t in boundary and mine.dtype != theirs.dtype:  # a uint8 output kept in the pool as int8 (passes.py)
            mine = from_pool(boundary[t], graph.tensors[t], mine)
        name = graph.tensors[t].name
        if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
            return Divergence(t, name, where, mine.size, mine.size, (), f"{mine.dtype}{list(mine.shape)}",
                              f"{theirs.dtype}{list(theirs.shape)}", oracle)
        wrong = _differing(mine, theirs)
        if len(wrong):
            first = tuple(int(i) for i in wrong[0])
            return Divergence(t, name, where, len(wrong), mine.size, first, mine[first].item(), theirs[first].item(),
                              oracle)
    return None
