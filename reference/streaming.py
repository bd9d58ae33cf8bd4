"""Replays of the segment-level kernels' memory traffic, in the order the C kernels perform it.

The values a step produces do not depend on the order (the interpreter computes them from the
inputs it loaded and checked when the step began); what does depend on it is which pool bytes
are still intact when they are read. These replays issue every load, free and store of the
step in kernel order, so the pool's tag checks catch the first byte a plan would corrupt.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vmcu_tflite.planner.access import AccessPattern

from .pool import Access, SimulatedPool


def replay_segments(pool: SimulatedPool, streamed: list[tuple[Access, int, int, AccessPattern]], out_who: Access,
                    out_base: int, out: np.ndarray) -> None:
    """Iteration by iteration: check the streamed inputs' reads, free what no later iteration
    reads, store the output segment (which may land on bytes freed just before).

    `streamed` holds (who, base, size, pattern) per input the output streams over.
    """
    flat = out.reshape(-1)
    schedules = [(who, base, size, pattern.schedule()) for who, base, size, pattern in streamed]
    frontier = []
    for _, _, size, s in schedules:
        later = np.minimum.accumulate(s["read_lo"][::-1])[::-1]  # smallest read at or after i
        frontier.append(np.append(later[1:], size))  # bytes below this are free after iteration i
    write_lo, write_hi = schedules[0][3]["write_lo"], schedules[0][3]["write_hi"]
    freed = [0] * len(schedules)
    for it in range(len(write_lo)):
        for k, (who, base, _, s) in enumerate(schedules):
            lo, hi = int(s["read_lo"][it]), int(s["read_hi"][it])
            if hi > lo:
                pool.load(who, base, lo, hi - lo)
            upto = int(frontier[k][it])
            if upto > freed[k]:
                pool.free(who, base, freed[k], upto - freed[k])
                freed[k] = upto
        lo, hi = int(write_lo[it]), int(write_hi[it])
        pool.store(out_who, out_base, lo, flat[lo:hi])


def replay_in_place_channels(pool: SimulatedPool, x_who: Access, x_base: int, x_shape, ws_who: Access,
                             ws_base: int, out_who: Access, out_base: int, out: np.ndarray, segment: int) -> None:
    """Channel segment by channel segment: copy the input's plane to the workspace, free it, then
    write the output's plane over the same channels."""
    n, h, w, c = x_shape
    pixels_in = np.arange(n * h * w, dtype=np.int64)[:, None] * c
    out_rows = out.reshape(-1, c)
    pixels_out = np.arange(out_rows.shape[0], dtype=np.int64)[:, None] * c
    for first in range(0, c, segment):
        channels = np.arange(first, min(first + segment, c), dtype=np.int64)
        x_offsets = (pixels_in + channels).reshape(-1)
        plane = pool.load_at(x_who, x_base, x_offsets)
        pool.store(ws_who, ws_base, 0, plane)
        pool.free_at(x_who, x_base, x_offsets)
        pool.load(ws_who, ws_base, 0, plane.size)
        pool.store_at(out_who, out_base, (pixels_out + channels).reshape(-1), out_rows[:, channels])
        pool.free(ws_who, ws_base, 0, plane.size)



@dataclass(frozen=True)
class Ring:
    """A fused block's ring of lead-conv output rows in its workspace."""

    who: Access
    base: int
    slots: int  # rows it holds
    rows: np.ndarray  # [rows of the lead conv's output, bytes per row]
    last_row: list[int]  # per output row: the last lead row computed at its start
    first_row: list[int]  # per output row: the first lead row its depthwise window reads


def replay_fused(pool: SimulatedPool, streamed: list[tuple[Access, int, int, AccessPattern]], pattern: AccessPattern,
                 out_who: Access, out_base: int, out: np.ndarray, ring: "Ring | None",
                 actual_reads=None) -> None:
    """A fused block, iteration by iteration like `replay_segments`, plus its ring of rows.

    With a ring, the lead conv's output rows are stored into their slots at the start of each
    output row (a slot is freed just before the row `slots` later overwrites it), and every row
    the depthwise window reads is loaded (checked) before the output row is computed.
    `actual_reads(it)` lists the input byte ranges the kernel itself reads in iteration `it`
    (window rows, the residual pixel): checking them, not only the pattern's range, keeps the
    access pattern itself under test.
    """
    schedule = pattern.schedule()
    per_row = int(np.prod(pattern.dims[1:]))
    frontiers = []
    for _, _, size, p in streamed:
        later = np.minimum.accumulate(p.schedule()["read_lo"][::-1])[::-1]
        frontiers.append(np.append(later[1:], size))
    freed = [0] * len(streamed)
    flat = out.reshape(-1)
    computed = -1
    for it in range(len(schedule["write_lo"])):
        for k, (who, base, _, p) in enumerate(streamed):
            lo, hi = int(schedule["read_lo"][it]), int(schedule["read_hi"][it])
            if hi > lo:
                pool.load(who, base, lo, hi - lo)
            for lo, hi in actual_reads(it) if actual_reads else ():
                pool.load(who, base, lo, hi - lo)
        if ring is not None and it % per_row == 0:
            y, row_bytes = it // per_row, ring.rows.shape[1]
            for r in range(computed + 1, ring.last_row[y] + 1):
                slot = (r % ring.slots) * row_bytes
                pool.free(ring.who, ring.base, slot, row_bytes)
                pool.store(ring.who, ring.base, slot, ring.rows[r])
            computed = max(computed, ring.last_row[y])
            for r in range(ring.first_row[y], ring.last_row[y] + 1):
                pool.load(ring.who, ring.base, (r % ring.slots) * row_bytes, row_bytes)
        for k, (who, base, _, _) in enumerate(streamed):
            upto = int(frontiers[k][it])
            if upto > freed[k]:
                pool.free(who, base, freed[k], upto - freed[k])
                freed[k] = upto
        lo, hi = int(schedule["write_lo"][it]), int(schedule["write_hi"][it])
        pool.store(out_who, out_base, lo, flat[lo:hi])
    if ring is not None:
        pool.free(ring.who, ring.base, 0, ring.slots * ring.rows.shape[1])


def fused_reads(params, pattern: AccessPattern):
    """The block-input byte ranges a fused kernel reads at each iteration (y, x, segment):
    the depthwise window's rows when there is no lead conv, and the residual pixel."""
    _, h, w, c = params.input_shape
    dw = params.depthwise
    k_h, k_w = dw.filter.shape[1:3]
    per_pixel = pattern.dims[2]
    out_w = pattern.dims[1]

    def reads(it: int) -> list[tuple[int, int]]:
        y, x = divmod(it // per_pixel, out_w)
        ranges = []
        if params.expand is None:
            x0 = max(0, x * dw.stride[1] - dw.padding[1])
            x1 = min(w, x * dw.stride[1] - dw.padding[1] + k_w)
            for row in range(max(0, y * dw.stride[0] - dw.padding[0]), min(h, y * dw.stride[0] - dw.padding[0] + k_h)):
                if x1 > x0:
                    ranges.append(((row * w + x0) * c, (row * w + x1) * c))
        if params.add is not None:
            ranges.append(((y * w + x) * c, (y * w + x + 1) * c))
        return ranges

    return reads
