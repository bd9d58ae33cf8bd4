"""What each pool address holds while a kernel description runs, for the interpreter's loads.

The interpreter executes a description statement by statement (`kernel_exec.py`), not in time
order, so a load cannot simply read the simulated pool: it asks what the pool held at the
loaded addresses at the load's time. That is the byte there before the step, or the byte the
latest earlier store of this step put there (a ring's row, a plane's copy, an output segment
over consumed input). Stores' addresses and times come from the schedule before anything runs;
their values are recorded as their statements execute.
"""
from __future__ import annotations

import numpy as np

UNSET = np.int64(-(1 << 62))  # a value not there yet: a store not executed, an element nothing wrote


class PoolHistory:
    """What each pool address holds during the step: its byte before the step, then each store's
    byte from the store's time on. Stores' addresses and times come from the schedule up front;
    their values are recorded as the statements run."""

    def __init__(self, before: np.ndarray, stores: dict[tuple, tuple[np.ndarray, np.ndarray]]) -> None:
        self.before = before.astype(np.int64)
        keys = list(stores)
        addresses = np.concatenate([stores[k][0] for k in keys] or [np.zeros(0, np.int64)])
        times = np.concatenate([stores[k][1] for k in keys] or [np.zeros(0, np.int64)])
        order = np.lexsort((times, addresses))
        self.address, self.time = addresses[order], times[order]
        self.values = np.full(len(order), UNSET, np.int64)
        slot = np.empty(len(order), np.int64)
        slot[order] = np.arange(len(order))
        sizes = np.cumsum([0] + [len(stores[k][0]) for k in keys])
        self.slots = {k: slot[sizes[i]:sizes[i + 1]] for i, k in enumerate(keys)}
        cells = np.arange(len(before))
        self.start = np.searchsorted(self.address, cells, side="left")  # each address's stores, in time order
        self.end = np.searchsorted(self.address, cells, side="right")
        self.first = np.full(len(before), np.iinfo(np.int64).max, np.int64)  # the time of each address's first store
        stored = self.end > self.start
        self.first[stored] = self.time[self.start[stored]]

    def record(self, key: tuple, values: np.ndarray) -> None:
        self.values[self.slots[key]] = values

    def read(self, address: np.ndarray, time: np.ndarray) -> np.ndarray:
        """The bytes at `address` at `time`; UNSET where the last store there has not run yet."""
        out = self.before[address].copy()
        later = np.flatnonzero(time > self.first[address])
        if later.size:
            a, t = address[later], time[later]
            lo, hi = self.start[a], self.end[a]
            while True:  # the last store at that address before t: bisection, all queries at once
                active = lo < hi
                if not active.any():
                    break
                mid = np.minimum((lo + hi) // 2, len(self.time) - 1)
                right = active & (self.time[mid] < t)
                lo = np.where(right, mid + 1, lo)
                hi = np.where(active & ~right, mid, hi)
            out[later] = self.values[lo - 1]
        return out
