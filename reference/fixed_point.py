"""TFLite's integer fixed-point arithmetic on numpy arrays, bit for bit.

Every function takes int32-valued arrays (any integer dtype) and returns int64 arrays holding
int32 values, emulating C int32 semantics (including wrap-around where C would wrap). Names
follow gemmlowp / TFLite so the two can be read side by side.
"""
from __future__ import annotations

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def wrap_int32(x: np.ndarray) -> np.ndarray:
    """What a C int32_t holds after an overflowing computation (two's complement)."""
    return np.asarray(x, dtype=np.int64).astype(np.int32).astype(np.int64)


def _div_pow2_toward_zero(x: np.ndarray, bits: int) -> np.ndarray:
    return np.where(x >= 0, x >> bits, -((-x) >> bits))


def saturating_rounding_doubling_high_mul(a, b) -> np.ndarray:
    """gemmlowp::SaturatingRoundingDoublingHighMul: (a*b*2 + 2**31) >> 32 with C rounding."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    result = _div_pow2_toward_zero(ab + nudge, 31)
    overflow = (a == INT32_MIN) & (b == INT32_MIN)
    return np.where(overflow, INT32_MAX, result)


def rounding_divide_by_pot(x, exponent) -> np.ndarray:
    """gemmlowp::RoundingDivideByPOT: x / 2**exponent, rounding half away from zero."""
    x = np.asarray(x, dtype=np.int64)
    exponent = np.asarray(exponent, dtype=np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x, multiplier, shift) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier (double rounding): x * multiplier * 2**(shift - 31)."""
    shift = np.asarray(shift, dtype=np.int64)
    left_shift = np.maximum(shift, 0)
    right_shift = np.maximum(-shift, 0)
    scaled = wrap_int32(np.asarray(x, dtype=np.int64) << left_shift)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(scaled, multiplier), right_shift)


def multiply_by_quantized_multiplier_64(x, multiplier, shift) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (the 16x8 layers): the Q31
    multiplier rounded to a Q15 one (0x7FFF from 0x7FFF0000 on), then one rounding shift right by
    15 - shift of the 64-bit product; the result cast to int32."""
    x = np.asarray(x, dtype=np.int64)
    multiplier = np.asarray(multiplier, dtype=np.int64)
    reduced = np.where(multiplier < 0x7FFF0000, (multiplier + (1 << 15)) >> 16, 0x7FFF)
    total = 15 - np.asarray(shift, dtype=np.int64)
    return wrap_int32((x * reduced + (np.int64(1) << (total - 1))) >> total)


def multiply_by_quantized_multiplier_smaller_than_one_exp(x, multiplier, left_shift) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp: left_shift is <= 0."""
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -np.asarray(left_shift))


def multiply_by_quantized_multiplier_greater_than_one(x, multiplier, left_shift) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplierGreaterThanOne: left_shift is >= 0."""
    scaled = wrap_int32(np.asarray(x, dtype=np.int64) << np.asarray(left_shift, dtype=np.int64))
    return saturating_rounding_doubling_high_mul(scaled, multiplier)


def saturate_int8(x: np.ndarray, lo: int = -128, hi: int = 127) -> np.ndarray:
    """Clamp to [lo, hi] and store as int8."""
    return np.clip(x, lo, hi).astype(np.int8)
