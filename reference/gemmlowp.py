"""gemmlowp's FixedPoint<int32_t, IntegerBits> transcendental functions, vectorized on numpy arrays.

TFLite's int8 SOFTMAX and LOGISTIC evaluate exp and 1/(1+x) with gemmlowp's fixed-point
polynomials and Newton-Raphson steps. A fixed-point value is passed around as its raw int32
(held in an int64 array); the number of integer bits of the format is an explicit argument where
the function depends on it. Additions wrap like C int32 arithmetic on the targets TFLite runs on.
"""
from __future__ import annotations

import numpy as np

from .fixed_point import (INT32_MAX, INT32_MIN, rounding_divide_by_pot, saturating_rounding_doubling_high_mul,
                          wrap_int32)

# Raw Q0.31 constants used by gemmlowp (they encode the values named beside them).
_EXP_MINUS_ONE_EIGHTH = 1895147668  # exp(-1/8)
_ONE_THIRD = 715827883  # 1/3
_FORTY_EIGHT_OVER_SEVENTEEN_Q2 = 1515870810  # 48/17 in Q2.29
_MINUS_THIRTY_TWO_OVER_SEVENTEEN_Q2 = -1010580540  # -32/17 in Q2.29
# exp(-2**k) in Q0.31 for k = -2 .. 4: the barrel shifter of exp_on_negative_values.
_EXP_BARREL = ((-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308), (2, 39332535),
               (3, 720401), (4, 242))


def _add(a, b) -> np.ndarray:
    return wrap_int32(np.asarray(a, dtype=np.int64) + np.asarray(b, dtype=np.int64))


def _sub(a, b) -> np.ndarray:
    return wrap_int32(np.asarray(a, dtype=np.int64) - np.asarray(b, dtype=np.int64))


def _mul(a, b) -> np.ndarray:
    """FixedPoint * FixedPoint: the raw product is a saturating rounding doubling high multiply."""
    return saturating_rounding_doubling_high_mul(a, b)


def saturating_rounding_multiply_by_pot(x, exponent: int) -> np.ndarray:
    """gemmlowp::SaturatingRoundingMultiplyByPOT<exponent> on int32 raws."""
    x = np.asarray(x, dtype=np.int64)
    if exponent == 0:
        return x
    if exponent < 0:
        return rounding_divide_by_pot(x, -exponent)
    threshold = (1 << (31 - exponent)) - 1
    shifted = wrap_int32(x << exponent)
    return np.where(x > threshold, INT32_MAX, np.where(x < -threshold, INT32_MIN, shifted))


def rescale(x, src_integer_bits: int, dst_integer_bits: int) -> np.ndarray:
    """gemmlowp::Rescale: the same real value in a format with another number of integer bits."""
    return saturating_rounding_multiply_by_pot(x, src_integer_bits - dst_integer_bits)


def rounding_half_sum(a, b) -> np.ndarray:
    """(a + b) / 2 rounded half away from zero, as gemmlowp's int32 RoundingHalfSum."""
    total = np.asarray(a, dtype=np.int64) + np.asarray(b, dtype=np.int64)
    biased = total + np.where(total >= 0, 1, -1)
    return np.where(biased >= 0, biased // 2, -((-biased) // 2))  # C division truncates


def one(integer_bits: int) -> int:
    """FixedPoint::One(): the largest raw in Q0, else exactly 1.0."""
    return INT32_MAX if integer_bits == 0 else 1 << (31 - integer_bits)


def exp_on_interval_between_negative_one_quarter_and_0_excl(a) -> np.ndarray:
    """exp(a) for a Q0.31 raw a in [-1/4, 0): a fourth-order Taylor expansion around -1/8."""
    x = _add(a, 1 << 28)  # a + 1/8
    x2 = _mul(x, x)
    x3 = _mul(x2, x)
    x4 = _mul(x2, x2)
    x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2)
    poly = saturating_rounding_multiply_by_pot(_add(_mul(_add(x4_over_4, x3), _ONE_THIRD), x2), -1)
    return _add(_EXP_MINUS_ONE_EIGHTH, _mul(_EXP_MINUS_ONE_EIGHTH, _add(x, poly)))


def exp_on_negative_values(a, integer_bits: int) -> np.ndarray:
    """exp(a) as a Q0.31 raw for a raw `a` <= 0 with `integer_bits` integer bits."""
    a = np.asarray(a, dtype=np.int64)
    fractional_bits = 31 - integer_bits
    one_quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_one_quarter = _sub(a & (one_quarter - 1), one_quarter)
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(
        rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0))
    remainder = _sub(a_mod_quarter_minus_one_quarter, a)
    for exponent, multiplier in _EXP_BARREL:
        if integer_bits > exponent:
            bit = 1 << (fractional_bits + exponent)
            result = np.where((remainder & bit) != 0, _mul(result, multiplier), result)
    if integer_bits > 5:
        clamp = -(1 << (36 - integer_bits))  # -32.0
        result = np.where(a < clamp, 0, result)
    return np.where(a == 0, one(0), result)


def _two_over_one_plus_x(a) -> np.ndarray:
    """2 / (1 + a) as a Q2.29 raw for a Q0.31 raw a in [0, 1): 1 / ((1 + a) / 2) by three
    Newton-Raphson steps from gemmlowp's linear first guess."""
    half_denominator = rounding_half_sum(a, one(0))
    x = _add(_FORTY_EIGHT_OVER_SEVENTEEN_Q2, _mul(half_denominator, _MINUS_THIRTY_TWO_OVER_SEVENTEEN_Q2))
    for _ in range(3):
        one_minus_half_denominator_times_x = _sub(one(2), _mul(half_denominator, x))
        x = _add(x, rescale(_mul(x, one_minus_half_denominator_times_x), 4, 2))
    return x


def one_over_one_plus_x_for_x_in_0_1(a) -> np.ndarray:
    """1 / (1 + a) as a Q0.31 raw for a Q0.31 raw a in [0, 1)."""
    return rescale(_two_over_one_plus_x(a), 1, 0)  # x / 2, read as Q1 then brought to Q0


def logistic(a, integer_bits: int) -> np.ndarray:
    """1 / (1 + exp(-a)) as a Q0.31 raw for any raw `a` with `integer_bits` integer bits."""
    a = np.asarray(a, dtype=np.int64)
    positive = a > 0
    abs_input = np.where(positive, a, wrap_int32(-a))
    result_if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(wrap_int32(-abs_input),
                                                                                  integer_bits))
    result_if_negative = _sub(one(0), result_if_positive)
    return np.where(a == 0, 1 << 30, np.where(positive, result_if_positive, result_if_negative))


def count_leading_zeros_u32(x) -> np.ndarray:
    """Leading zero bits of x read as uint32 (32 for 0)."""
    u = np.asarray(x, dtype=np.int64) & 0xFFFFFFFF
    width = np.zeros(u.shape, dtype=np.int64)  # index of the highest set bit, plus one
    for shift in (16, 8, 4, 2, 1):
        big = (u >> shift) > 0
        width = width + np.where(big, shift, 0)
        u = np.where(big, u >> shift, u)
    return 32 - (width + (u > 0))


def get_reciprocal(x, x_integer_digits: int) -> tuple[np.ndarray, np.ndarray]:
    """TFLite's GetReciprocal: (Q0.31 raw of 2**num_bits_over_unit / x, num_bits_over_unit)."""
    x = np.asarray(x, dtype=np.int64)
    headroom_plus_one = count_leading_zeros_u32(x)
    num_bits_over_unit = x_integer_digits - headroom_plus_one
    shifted = ((x & 0xFFFFFFFF) << headroom_plus_one) & 0xFFFFFFFF
    shifted_sum_minus_one = wrap_int32(shifted - (1 << 31))
    return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one), num_bits_over_unit


def one_minus_x_over_one_plus_x_for_x_in_0_1(a) -> np.ndarray:
    """(1 - a) / (1 + a) = 2 / (1 + a) - 1 as a Q0.31 raw for a Q0.31 raw a in [0, 1)."""
    return rescale(_sub(_two_over_one_plus_x(a), one(2)), 2, 0)


def tanh(a, integer_bits: int) -> np.ndarray:
    """tanh(a) as a Q0.31 raw for any raw `a` with `integer_bits` integer bits: tanh(|a|) is
    (1 - exp(-2|a|)) / (1 + exp(-2|a|)), doubling |a| by reading its raw with one more integer bit."""
    a = np.asarray(a, dtype=np.int64)
    negative = a < 0
    n = np.where(negative, a, wrap_int32(-a))
    t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1))
    return np.where(a == 0, 0, np.where(negative, wrap_int32(-t), t))


def inv_sqrt_multiplier(x: int) -> tuple[int, int]:
    """TFLite's GetInvSqrtQuantizedMultiplierExp(x, reverse_shift=-1) for one non-negative int32:
    (Q0.31 multiplier, left shift) with multiplier * 2**(shift - 31) ~ 1 / sqrt(x), by five
    Newton-Raphson steps on the input brought to [2**27, 2**29)."""
    if x <= 1:
        return INT32_MAX, 0
    shift = 11
    while x >= 1 << 29:
        x //= 4
        shift += 1
    pairs = (int(count_leading_zeros_u32(x)) - 1) // 2 - 1
    shift -= pairs
    x <<= 2 * pairs
    half_input = int(saturating_rounding_multiply_by_pot(x >> 1, -1))
    half_three = (1 << 28) + (1 << 27)  # 1.5 in Q3.28
    guess = 1 << 28  # 1.0 in Q3.28
    for _ in range(5):
        cubed = saturating_rounding_multiply_by_pot(_mul(_mul(guess, guess), guess), 6)  # Q9 -> Q3
        guess = int(saturating_rounding_multiply_by_pot(_sub(_mul(half_three, guess), _mul(half_input, cubed)), 3))
    guess = int(_mul(guess, 1518500250))  # times sqrt(2) / 2
    if shift < 0:
        guess = int(wrap_int32(guess << -shift))
        shift = 0
    return guess, -shift


def _saturate32(x) -> np.ndarray:
    return np.clip(np.asarray(x, dtype=np.int64), INT32_MIN, INT32_MAX)


def log_x_for_x_at_least_1(x: int, input_integer_bits: int, output_integer_bits: int) -> int:
    """TFLite's log_x_for_x_greater_than_or_equal_to_1: ln(x) as a raw with `output_integer_bits`
    for a raw x >= 1 with `input_integer_bits`, by gemmlowp-style fixed point: the binary exponent
    (taken twice, from x and from x / sqrt(2), to keep the mantissa near 1) plus a rational
    approximation of the mantissa's log."""
    accum_bits = output_integer_bits + 1
    log_2, sqrt_sqrt_half, sqrt_half, one_quarter = 1488522236, 1805811301, 1518500250, 536870912
    alpha_n, alpha_d, alpha_i, alpha_f = 117049297, 127690142, 1057819769, 638450708
    shifted_quarter = int(rescale(one_quarter, 0, accum_bits))
    z_a = int(x)
    z_a_headroom_plus_1 = int(count_leading_zeros_u32(z_a))
    r_a_tmp = int(saturating_rounding_multiply_by_pot(z_a, z_a_headroom_plus_1 - 1))
    r_a = int(saturating_rounding_multiply_by_pot(_mul(r_a_tmp, sqrt_half), 1))
    z_a_pow_2_adj = int(_saturate32(int(saturating_rounding_multiply_by_pot(
        input_integer_bits - z_a_headroom_plus_1, 31 - accum_bits)) + shifted_quarter))
    z_b = int(_mul(z_a, sqrt_half))
    z_b_headroom = int(count_leading_zeros_u32(z_b)) - 1
    r_b = int(saturating_rounding_multiply_by_pot(z_a, z_b_headroom))
    z_b_pow_2_adj = int(_saturate32(int(saturating_rounding_multiply_by_pot(
        input_integer_bits - z_b_headroom, 31 - accum_bits)) - shifted_quarter))
    r = min(r_a, r_b)
    z_pow_2_adj = max(z_a_pow_2_adj, z_b_pow_2_adj)
    p = int(rounding_half_sum(r, sqrt_sqrt_half))
    q = int(_sub(r, sqrt_sqrt_half))
    q = int(_add(q, q))
    common_sq = _mul(q, q)
    num = _add(_mul(q, r), _mul(_mul(q, common_sq), alpha_n))
    denom_minus_one = _add(_mul(p, _add(_add(alpha_i, q), _mul(alpha_d, common_sq))), _mul(alpha_f, q))
    recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one)
    num_scaled = rescale(num, 0, accum_bits)
    total = _add(_mul(z_pow_2_adj, log_2), _mul(num_scaled, recip_denom))
    return int(rescale(total, accum_bits, output_integer_bits))
