"""CAST reference kernel: each integer element as static_cast makes it, modulo 2^bits of the output."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Cast(Kernel):
    kind = "CAST"

    def run(self, x: np.ndarray) -> np.ndarray:
        bits = np.dtype(self.params.output_type).itemsize * 8
        wrapped = np.asarray(x, dtype=np.int64) % (1 << bits)  # the value modulo 2^bits, in [0, 2^bits)
        if np.dtype(self.params.output_type).kind == "i":  # two's complement: the upper half is negative
            wrapped = np.where(wrapped >= 1 << (bits - 1), wrapped - (1 << bits), wrapped)
        return wrapped.astype(self.params.output_type).reshape(self.params.shape)
