"""SignalFftAutoScale reference kernel: TFLite Micro's MaxAbs16 (an int16 running maximum, so -32768
wraps), the free bits 16 - msb(max) - 1 (msb(0) = 32, as GCC's builtin gives), x * 2^bits wrapped to
int16; part 0 returns the samples, part 1 the bits."""
from __future__ import annotations

import numpy as np

from .base import Kernel


def _int16(v: int) -> int:
    return (v + 32768) % 65536 - 32768


def max_abs16(values) -> int:
    best = 0
    for v in values:
        if v > best:
            best = v
        elif -v > best:
            best = _int16(-v)
    return best


def most_significant_bit32(x: int) -> int:
    x %= 1 << 32  # the int16 maximum as TFLite Micro passes it: converted to uint32
    return x.bit_length() if x else 32


class SignalFftAutoScale(Kernel):
    kind = "SignalFftAutoScale"

    def run(self, x: np.ndarray) -> np.ndarray:
        samples = [int(v) for v in np.asarray(x).reshape(-1)[:self.params.size]]
        bits = max(16 - most_significant_bit32(max_abs16(samples)) - 1, 0)
        if self.params.part == 1:
            return np.array(bits, dtype=np.int32)
        return np.array([_int16(v * (1 << bits)) for v in samples], dtype=np.int16)
