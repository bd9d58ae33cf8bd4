"""Whole-tensor planner: TFLite Micro's greedy strategy, the baseline every segment plan is compared to.

Buffers are placed largest first; each goes to the lowest address where it overlaps no already
placed buffer whose lifetime it shares. Nothing is shared within a step, so a step needs its
inputs plus its outputs plus whatever else is live. TFLite Micro aligns to 16 bytes; we align to
`alignment` (4 by default: word access on Cortex-M), or a buffer's element size where that is more
(uint64: 8), so the result never exceeds its head.
"""
from __future__ import annotations

from typing import Sequence

from ..graph import Graph
from ..lifetimes import Buffer, buffer_lifetimes
from ..plan import Plan, PlannedStep
from ..steps import Step
from .footprint import step_footprints
from .streaming import default_segment
from .tiles import TILE_ROWS, gemm_rows


def _align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def greedy_offsets(buffers: Sequence[Buffer], alignment: int = 4) -> dict[int, int]:
    """First-fit by decreasing size over time-overlapping buffers; deterministic tie-breaks."""
    placed: list[tuple[int, Buffer]] = []
    offsets: dict[int, int] = {}
    for buf in sorted(buffers, key=lambda b: (-b.size, b.first, b.tensor)):
        overlapping = sorted(((off, other) for off, other in placed
                              if other.first <= buf.last and buf.first <= other.last), key=lambda p: p[0])
        candidate = 0
        for off, other in overlapping:
            if candidate + buf.size <= off:
                break
            candidate = max(candidate, _align(off + other.size, max(alignment, buf.align)))
        offsets[buf.tensor] = candidate
        placed.append((candidate, buf))
    return offsets


def plan_tensors(graph: Graph, steps: Sequence[Step], alignment: int = 4) -> Plan:
    buffers = buffer_lifetimes(graph, steps)
    offsets = greedy_offsets(list(buffers.values()), alignment)
    pool = max((offsets[t] + b.size for t, b in buffers.items()), default=0)
    footprints = step_footprints(buffers, offsets, pool)
    planned = tuple(
        PlannedStep(index=s.index, kernel=s.kernel, ops=s.ops, segment_bytes=default_segment(graph, s),
                    gap_segments=0, footprint_bytes=footprints[s.index], macs=s.macs,
                    tile_rows=TILE_ROWS if gemm_rows(s) >= TILE_ROWS else 1)  # tensors apart: any read order
        for s in steps)
    return Plan(model=graph.name, planner="tensor", pool_bytes=pool, tensor_level_bytes=pool,
                offsets=offsets, buffers=buffers, steps=planned)
