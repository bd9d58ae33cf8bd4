"""INT16_SIGMOID reference kernel: int16 LOGISTIC and TANH as TFLite's reference_integer_ops compute
them: the input rescaled with rounding, then the sigmoid table read at |x| / 512 (LOGISTIC) or
|x| / 256 (TANH) with linear interpolation on the remainder, mirrored for negative inputs.

The table is built here from its definition, apart from the converter's: for each of 255 points
s(i) = 2^16 / (1 + e^(-i/24)), minus half of (chord midpoint - curve midpoint), rounded half away
from zero; then 0xFFFF."""
from __future__ import annotations

import math

import numpy as np

from .base import Kernel


def _table() -> np.ndarray:
    s = [65536.0 / (1.0 + math.exp(-k / 24.0)) for k in np.arange(0.0, 256.5, 0.5)]  # s[2i] = s(i), s[2i+1] = s(i+.5)
    out = []
    for i in range(255):
        corrected = s[2 * i] - ((s[2 * i] + s[2 * i + 2]) / 2.0 - s[2 * i + 1]) / 2.0
        out.append(math.floor(corrected + 0.5) if corrected >= 0 else -math.floor(-corrected + 0.5))
    return np.array(out + [0xFFFF], dtype=np.int64)


TABLE = _table()


class Int16Sigmoid(Kernel):
    kind = "INT16_SIGMOID"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        shift = p.input_left_shift
        rounding = (1 << (shift - 1)) if shift > 0 else 0
        v = (x.astype(np.int64) * p.input_multiplier + rounding) >> shift
        magnitude = np.abs(v)
        bits = 9 if p.operation == "LOGISTIC" else 8
        index = magnitude >> bits
        saturated = index >= 255
        i = np.minimum(index, 254)
        low, high = TABLE[i], TABLE[i + 1]
        frac = magnitude & ((1 << bits) - 1)
        curve = np.where(saturated, 0xFFFF << bits, (low << bits) + frac * (high - low))
        if p.operation == "LOGISTIC":
            curve = np.where(saturated, 0x7FFF << 10, curve)
            y = np.where(v >= 0, curve + 512, (1 << 25) - curve + 511) >> 10
        else:
            y = np.where(v >= 0, curve - (1 << 23) + 128, -curve + (1 << 23) + 127) >> 8
        return y.astype(np.int16).reshape(x.shape)
