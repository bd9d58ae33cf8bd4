"""SignalWindow reference kernel: (x * w) >> shift in int32, saturated to int16, w repeating."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class SignalWindow(Kernel):
    kind = "SignalWindow"

    def run(self, x: np.ndarray) -> np.ndarray:
        w = np.asarray(self.params.weights, dtype=np.int64)
        rows = np.asarray(x, dtype=np.int64).reshape(-1, w.size)
        raw = (rows * w) >> self.params.shift  # numpy's >> on int64 is arithmetic, as int32's in C
        return np.clip(raw, -32768, 32767).astype(np.int16).reshape(self.params.shape)
