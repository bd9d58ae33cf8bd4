"""Two-row GEMM tiles wherever the placement already allows them (same pool, faster kernel).

A pointwise or fully connected step computes two input rows per weight pass when it runs in
two-row tiles (`kernels/gemm.py`): about a fifth fewer instructions. But a streamed step then
reads row m + 1 before it stores row m, so its output may need to start up to one row further
before its input. The tiles are chosen after placement, step by step, only where a placement in
the same pool keeps that distance (the one found, else one solved again): the pool never grows
for them (the paper's tie-break: with the same bytes, the faster plan).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

from ..graph import Graph
from ..kernels import gemm_shape
from ..lifetimes import Buffer
from ..steps import Step
from .placement import SolveBudget, fits
from .streaming import StepStreaming, stream_distance, stream_overlaps

TILE_ROWS = 2


def gemm_rows(step: Step) -> int:
    """Rows of the step's GEMM, or 0 when the step is not one (nor one that tiles: a 16x8 GEMM reads
    one int16 row at a time, `kernels.gemm`)."""
    shape = gemm_shape(step.kernel, step.params)
    return shape[0] if shape and getattr(step.params, "element", 1) == 1 else 0


def choose_tiles(graph: Graph, steps: Sequence[Step], streaming: Mapping[int, StepStreaming],
                 buffers: Mapping[int, Buffer], pool: int, offsets: Mapping[int, int], unwrapped: frozenset[int],
                 budget: SolveBudget | None = None,
                 views: bool = False) -> tuple[dict[int, int], dict[int, StepStreaming], dict[int, int]]:
    """The GEMM steps that run in two-row tiles ({step: 2}), the streaming with the distances the
    tiles need, and the placement: the one found (`offsets` in a pool of `pool` bytes) where it
    already keeps those distances, else one re-solved in the same pool (`views`: with the slices
    that are views pinned, `views.py`)."""
    tiles, streaming, offsets = {}, dict(streaming), dict(offsets)
    for step in steps:
        if gemm_rows(step) < TILE_ROWS:
            continue
        chosen = streaming.get(step.index)
        if chosen is None or not chosen.streams:  # input and output apart: any order of reads is safe
            tiles[step.index] = TILE_ROWS
            continue
        streams = tuple(replace(s, distance=stream_distance(graph, step, s.tensor, chosen.segment_bytes, TILE_ROWS))
                        for s in chosen.streams)
        if any(s.distance is None for s in streams):
            continue
        y = graph.storage_of(step.outputs[0])
        trial = streaming | {step.index: replace(chosen, streams=streams)}
        if all((offsets[graph.storage_of(s.tensor)] - offsets[y]) % pool >= min(s.distance, buffers[y].size)
               for s in streams):
            found = offsets
        else:
            found = fits(buffers, stream_overlaps(graph, steps, trial, views), pool, offsets, budget,
                         unwrapped=unwrapped)
        if found is not None:
            tiles[step.index], streaming, offsets = TILE_ROWS, trial, found
    return tiles, streaming, offsets
