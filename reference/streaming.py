"""Replays of the segment-level kernels' memory traffic, in the order the C kernels perform it.

The values a step produces do not depend on the order (the interpreter computes them from the
inputs it loaded and checked when the step began); what does depend on it is which pool bytes
are still intact when they are read. These replays issue every load, free and store of the
step in kernel order, so the pool's tag checks catch the first byte a plan would corrupt.
"""
from __future__ import annotations

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

