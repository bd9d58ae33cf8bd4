"""A streamed input that only UNPACK reads, one part per row (an unrolled recurrent model's frames):
each part pulled from the application by a step of its own, just before the first step that reads it.

An unrolled LSTM or GRU (Keras `unroll=True`) UNPACKs its [1, T, F] sequence into T frames at its
start, so in the plan every frame is live from the first step until its time step reads it. When
the application hands the sequence over frame by frame (`--stream-input`: a microphone's feature
frames arrive one after another), the frame needs to exist only from just before its time step:
each UNPACK part becomes a PULLED_ROW step (`ops/pulled_row.py`) that pulls its row into the part's
place, moved to just before the first step that reads the part. The sequence itself then has no
bytes in the pool. Taken only where every part is read and the moved steps pull the rows in
increasing order (each once, as the protocol wants); the pipeline keeps the plan where its pool is
smaller.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .graph import Graph
from .lifetimes import Dataflow
from .ops.pulled_row import KIND, PulledRowParams
from .steps import Step
from .streamed_io import tensor_rows

UNPACK = "UNPACK"


def pull_parts(graph: Graph, steps: Sequence[Step], pulled: dict[int, int]) -> tuple[Step, ...]:
    """`steps` with the UNPACK parts of the `pulled` inputs (storage tensor -> model input index)
    turned into PULLED_ROW steps where that works; renumbered in their new order."""
    order = list(steps)
    for storage, index in sorted(pulled.items()):
        order = [replace(s, index=i) for i, s in enumerate(_pull_input(graph, order, storage, index))]
    return tuple(order)


def _pull_input(graph: Graph, steps: list[Step], storage: int, index: int) -> list[Step]:
    flow = Dataflow(graph, steps)
    readers = flow.readers(storage)
    tensor = graph.tensors[storage]
    rows, row_bytes = tensor_rows(tensor)
    parts = {i: _row_of(steps[i], rows, row_bytes) for i in readers}
    if not readers or None in parts.values() or sorted(parts.values()) != list(range(rows)):
        return steps
    first_reader = {}
    for i in readers:
        out = steps[i].outputs[0]
        if flow.is_graph_output(out) or not flow.readers(out):
            return steps
        first_reader[i] = min(flow.readers(out))
    kept = [s for s in steps if s.index not in parts]
    before: dict[int, list[Step]] = {}
    for i in sorted(parts, key=lambda i: (first_reader[i], parts[i])):
        step = steps[i]
        params = PulledRowParams(part=step.params, pulls_input=index, row=parts[i], row_bytes=row_bytes)
        before.setdefault(first_reader[i], []).append(replace(step, kernel=KIND, params=params))
    moved = [m for s in kept for m in before.get(s.index, []) + [s]]
    pulled_rows = [s.params.row for s in moved if s.kernel == KIND]
    return moved if pulled_rows == sorted(pulled_rows) else steps


def _row_of(step: Step, rows: int, row_bytes: int) -> int | None:
    """The row an UNPACK part is, where it is one whole row of its input (along the input's row
    axis, nothing outside it), else None."""
    if step.kernel != UNPACK:
        return None
    p = step.params
    outer, parts, inner = p.input_shape
    if outer != 1 or parts != rows or inner * p.element_bytes != row_bytes:
        return None
    return p.begin[1]
