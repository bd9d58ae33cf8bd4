"""SignalEnergy reference kernel: re^2 + im^2 of pairs [start, end) modulo 2^32, 0 elsewhere."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class SignalEnergy(Kernel):
    kind = "SignalEnergy"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        pairs = np.asarray(x, dtype=np.int64).reshape(-1, 2)
        out = np.zeros(p.size, dtype=np.int64)
        out[p.start:p.end] = (pairs[p.start:p.end, 0] ** 2 + pairs[p.start:p.end, 1] ** 2) % (1 << 32)
        return out.astype(np.uint32)
