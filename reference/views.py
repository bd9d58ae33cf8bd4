"""A copy step whose output the plan puts exactly on the input bytes it copies (a view).

The converter pins an int16 slice that is one run of its input's bytes onto those bytes
(`vmcu_tflite/planner/views.py`), so the copy moves each byte onto itself. The interpreter does
not take the converter's word for which bytes those are: it hands bytes over only where the
output's place lies inside its input, every byte there is still tagged as the input's byte at
that offset, and the bytes already hold what this step's reference op computed. Then those
addresses belong to the output from now on (the input's later readers find them gone, as they
must); anywhere else the output is stored as usual, over free bytes only.
"""
from __future__ import annotations

import numpy as np

from .pool import Access, SimulatedPool

COPY_KINDS = frozenset({"SPLIT", "SPLIT_V", "UNPACK", "STRIDED_SLICE"})


def hand_over(pool: SimulatedPool, source: Access, source_base: int, source_bytes: int, who: Access, base: int,
              values: np.ndarray) -> bool:
    """Retag the input bytes the output sits on as the output's, if they are exactly its bytes."""
    values = np.ascontiguousarray(values, dtype=np.int8).reshape(-1)
    offset = (base - source_base) % pool.size
    if source.tensor == who.tensor or offset + values.size > source_bytes:
        return False
    inside = offset + np.arange(values.size)
    addresses = (source_base + inside) % pool.size
    if not (np.array_equal(pool.owner[addresses], np.full(values.size, source.tensor))
            and np.array_equal(pool.byte[addresses], inside) and np.array_equal(pool.data[addresses], values)):
        return False
    pool.release(addresses)
    pool.place(who, base, np.arange(values.size), values)
    return True
