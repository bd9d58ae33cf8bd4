"""HARD_SWISH reference kernel: TFLite's reference_ops HardSwish for int8, in its int16 arithmetic.

x * relu6(x + 3) / 6: the input goes to a 7-bit finer "hires" scale, one int16 copy is brought
to the output scale and another to the "reluish" scale (3/32768, so that [-3, 3] spans int16),
the reluish value is mapped to [0, 1] and the two are multiplied. Every step is int16, with
gemmlowp's rounding and saturation at exactly the points TFLite has them.
"""
from __future__ import annotations

import numpy as np

from .base import Kernel

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


def wrap_int16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.int64).astype(np.int16).astype(np.int64)


def _div_toward_zero(x: np.ndarray, divisor: int) -> np.ndarray:
    return np.where(x >= 0, x // divisor, -((-x) // divisor))


def saturating_rounding_doubling_high_mul16(a, b) -> np.ndarray:
    """gemmlowp's int16 SaturatingRoundingDoublingHighMul."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 14, 1 - (1 << 14))
    result = wrap_int16(_div_toward_zero(ab + nudge, 1 << 15))
    return np.where((a == INT16_MIN) & (b == INT16_MIN), INT16_MAX, result)


def saturating_doubling_high_mul16(a, b) -> np.ndarray:
    """TFLite's HardSwish helper: a * b / 2**15 truncated, saturating only -1 * -1."""
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    result = wrap_int16(_div_toward_zero(a * b, 1 << 15))
    return np.where((a == b) & (a == INT16_MIN), INT16_MAX, result)


def rounding_divide_by_pot16(x, exponent: int) -> np.ndarray:
    """gemmlowp's RoundingDivideByPOT on int16: the mask is an int16 too (all ones from 16 bits on)."""
    x = np.asarray(x, dtype=np.int64)
    mask = int(wrap_int16((1 << exponent) - 1))
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + ((x & mask) > threshold)


def saturating_left_shift16(x, amount: int) -> np.ndarray:
    return np.clip(np.asarray(x, dtype=np.int64) * (1 << amount), INT16_MIN, INT16_MAX)


class HardSwish(Kernel):
    kind = "HARD_SWISH"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        hires = (x.astype(np.int64) - p.input_zero_point) * (1 << 7)
        preshift_output = saturating_rounding_doubling_high_mul16(hires, p.output_multiplier)
        reluish = hires
        if p.reluish_exponent > 0:
            reluish = saturating_left_shift16(reluish, p.reluish_exponent - 1)
        reluish = saturating_rounding_doubling_high_mul16(reluish, p.reluish_multiplier)
        if p.reluish_exponent > 0:
            reluish = saturating_left_shift16(reluish, 1)
        if p.reluish_exponent < 0:
            reluish = rounding_divide_by_pot16(reluish, -p.reluish_exponent)
        reluish = (reluish + (1 << 15)) >> 1  # [-1, 1] on the reluish scale -> [0, 1] in Q0.15
        output = saturating_doubling_high_mul16(reluish, preshift_output)
        output = wrap_int16(rounding_divide_by_pot16(output, -p.output_exponent) + p.output_zero_point)
        return np.clip(output, -128, 127).astype(np.int8)
