"""Bytes of the pool each step occupies: the union of its live buffers' circular intervals."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..lifetimes import Buffer


def step_footprints(buffers: Mapping[int, Buffer], offsets: Mapping[int, int], pool: int) -> dict[int, int]:
    """Step index -> occupied bytes (a streamed output and its input count once where they overlap)."""
    last = max((b.last for b in buffers.values()), default=0)
    result = {}
    for step in range(last + 1):
        used = np.zeros(pool, dtype=bool)
        for b in buffers.values():
            if b.first <= step <= b.last:
                used[(offsets[b.tensor] + np.arange(b.size)) % pool] = True
        result[step] = int(used.sum())
    return result
