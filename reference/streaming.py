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
