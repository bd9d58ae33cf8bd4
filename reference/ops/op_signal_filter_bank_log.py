"""SignalFilterBankLog reference kernel, channel by channel in Python integers masked to uint32.

The log2 fraction's correction table is computed here from its definition, 2**16 * (log2(1 + i /
128) - i / 128) rounded, for i in 0..128 (and one 0 past the end, which only an input of exactly a
segment's end could index); tests check every value against TFLite Micro's outputs.
"""
from __future__ import annotations

from math import log2

import numpy as np

from .base import Kernel

U32 = 0xFFFFFFFF
SEGMENTS_LOG2, SCALE_LOG2, LN2_Q16 = 7, 16, 45426
CORRECTION = [round((1 << SCALE_LOG2) * (log2(1 + i / 128) - i / 128)) for i in range(129)] + [0]


def log2_q16(x: int) -> int:
    """log2(x) in Q16, x > 1: the integer part and the corrected, interpolated fraction."""
    integer = x.bit_length() - 1
    frac = x - (1 << integer)
    frac = frac << (SCALE_LOG2 - integer) if integer < SCALE_LOG2 else frac >> (integer - SCALE_LOG2)
    segment = frac >> (SCALE_LOG2 - SEGMENTS_LOG2)
    c0, c1 = CORRECTION[segment], CORRECTION[segment + 1]
    within = frac - (segment << (SCALE_LOG2 - SEGMENTS_LOG2))
    fraction = frac + c0 + (((c1 - c0) * within) >> SCALE_LOG2)
    return ((integer << SCALE_LOG2) + fraction) & U32


def scaled_log(x: int, output_scale: int) -> int:
    half = 1 << (SCALE_LOG2 - 1)
    natural = ((LN2_Q16 * log2_q16(x) + half) >> SCALE_LOG2) & U32
    return ((output_scale * natural + half) & U32) >> SCALE_LOG2


class SignalFilterBankLog(Kernel):
    kind = "SignalFilterBankLog"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        out = []
        for value in (int(v) for v in x.reshape(-1)):
            shifted = (value << p.input_correction_bits) & U32
            out.append(min(scaled_log(shifted, p.output_scale), 32767) if shifted > 1 else 0)
        return np.array(out, dtype=np.int16)
