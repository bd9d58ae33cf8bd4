"""SignalPCAN reference kernel, channel by channel in Python integers: the gain from the lookup
table's quadratic segment of the noise estimate, the SNR, and its shrink."""
from __future__ import annotations

import numpy as np

from .base import Kernel

SNR_BITS, OUTPUT_BITS = 12, 6


def gain(noise: int, lut: np.ndarray) -> int:
    """The wide dynamic function: int16, returned as the uint32 it is widened to."""
    if noise <= 2:
        value = int(lut[noise])
    else:
        top = noise.bit_length()
        c0, c1, c2 = (int(v) for v in lut[4 * top - 6:4 * top - 3])
        frac = ((noise << (11 - top)) if top < 11 else (noise >> (top - 11))) & 0x3FF
        curve = ((c2 * frac) >> 5) + c1 * 32  # both int32: |c2 * 1023| >> 5 and c1 * 32 are below 2**21
        value = ((curve * frac + (1 << 14)) >> 15) + c0
        value = ((value + 0x8000) & 0xFFFF) - 0x8000  # truncated to int16
    return value & 0xFFFFFFFF


def shrink(snr: int) -> int:
    if snr < (2 << SNR_BITS):
        return (snr * snr) >> (2 + 2 * SNR_BITS - OUTPUT_BITS)
    return (snr >> (SNR_BITS - OUTPUT_BITS)) - (1 << OUTPUT_BITS)


class SignalPCAN(Kernel):
    kind = "SignalPCAN"

    def run(self, x: np.ndarray, noise: np.ndarray) -> np.ndarray:
        p = self.params
        out = [shrink(((int(v) * gain(int(n), p.gain_lut)) >> p.snr_shift) & 0xFFFFFFFF)
               for v, n in zip(x.reshape(-1), noise.reshape(-1))]
        return np.array(out, dtype=np.uint32)
