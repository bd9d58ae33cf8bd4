"""Slices that are views: an int16 part of a tensor that is one run of its bytes stays where it is.

An unrolled recurrent layer cuts tensors into contiguous parts: UNPACK takes the time steps of
its input, SPLIT (or STRIDED_SLICE) the gate rows of a fully connected layer's product. Each part
is bytes [offset, offset + size) of its input. Copying it elsewhere holds the whole input and
every part at once until the last part is cut; placing the part exactly over those bytes instead
costs no byte at all, and from then on each part lives on its own (the input dies with the last
cut, the parts with their own readers), so a gate's activation can write over its own part.

The copy step stays (the strided copy moves each byte onto itself: the same instructions, the
same pool reads and writes); the placement only pins the part's base to its input's base plus
the offset (`Overlap.offset`). The reference interpreter hands those bytes from the input to the
part where the plan places the part so, and checks every byte it hands over still holds the
input's byte (`vmcu_reference.views`), so a plan that overwrote them fails there.

Only int16 parts: the int8 plans stay as they were (their published figures).
"""
from __future__ import annotations

import math
from typing import Sequence

from ..graph import Graph
from ..steps import Step
from .placement import Overlap

SLICE_KINDS = frozenset({"SPLIT", "SPLIT_V", "UNPACK", "STRIDED_SLICE"})


def contiguous_offset(params) -> int | None:
    """The byte offset of a slice (`strided_slice.SliceParams`) that is one run of its input's
    bytes in row-major order, else None: the axes before the first cut one take one index each,
    the axes after it are whole, and every step along a counted axis is 1."""
    shape, begin, counts = params.input_shape, params.begin, params.counts
    if any(c > 1 and s != 1 for c, s in zip(counts, params.steps)):
        return None
    cut = next((a for a, (c, n) in enumerate(zip(counts, shape)) if c != n), len(shape))
    if any(counts[a] != 1 for a in range(cut)) or any(
            begin[a] != 0 or counts[a] != shape[a] for a in range(cut + 1, len(shape))):
        return None
    offset = sum(b * math.prod(shape[a + 1:]) for a, b in enumerate(begin))
    return offset * params.element_bytes


def view_offset(graph: Graph, step: Step) -> int | None:
    """Where the step's int16 output lies in its input, if the step only cuts a contiguous part
    out of it and the part may stay there (a part the application reads is kept apart; `view_steps`
    says where its input allows it)."""
    if step.kernel not in SLICE_KINDS or len(step.outputs) != 1 or not step.inputs:
        return None
    x, y = graph.storage_of(step.inputs[0]), graph.storage_of(step.outputs[0])
    if x == y or graph.tensors[x].dtype != "int16" or graph.tensors[y].dtype != "int16":
        return None
    if y in {graph.storage_of(p.tensor) for p in graph.outputs}:
        return None
    offset = contiguous_offset(step.params)
    if offset is None or offset + graph.tensors[y].num_bytes > graph.tensors[x].num_bytes:
        return None
    return offset


def view_steps(graph: Graph, steps: Sequence[Step]) -> dict[int, int]:
    """Step index -> offset of each part that is a view, where every reader of its input is such a
    cut and the application does not read the input: a part's bytes then stop being the input's
    when it is cut (no later whole read of the input finds them gone)."""
    offsets = {s.index: view_offset(graph, s) for s in steps}
    readers: dict[int, list[int]] = {}
    for s in steps:
        for t in dict.fromkeys(map(graph.storage_of, s.inputs)):
            readers.setdefault(t, []).append(s.index)
    kept = {graph.storage_of(p.tensor) for p in graph.outputs}
    found = {}
    for k, offset in offsets.items():
        x = graph.storage_of(steps[k].inputs[0]) if offset is not None else None
        if x is not None and x not in kept and all(offsets[r] is not None for r in readers[x]):
            found[k] = offset
    return found


def view_overlaps(graph: Graph, steps: Sequence[Step]) -> list[Overlap]:
    """Each view's part pinned inside its input."""
    return [Overlap(graph.storage_of(steps[k].inputs[0]), graph.storage_of(steps[k].outputs[0]), 0, True, offset)
            for k, offset in view_steps(graph, steps).items()]
