"""The C runtime's integer helpers (csrc/include/vmcu/vmcu_support.h, vmcu_dsp.h) on numpy arrays.

These mirror what the generated kernels call, operation for operation, so that a kernel
description executed in Python computes what its C computes, including the cheaper forms a
layer's constants allow (`vmcu_tflite/kernels/requant.py`): where the C has a DSP path and a
portable one, this follows the DSP path (SMMULR on a doubled int32, which wraps where the
portable 64-bit form would not), the one Cortex-M targets run. They are deliberately not TFLite's
formulas (`fixed_point.py`): the interpreter checks every described step's output against those.

Arrays hold int32 values in int64; `int32` wraps like a C int32_t conversion.
"""
from __future__ import annotations

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


def int32(x) -> np.ndarray:
    """(int32_t)x: two's complement wrap."""
    return np.asarray(x, dtype=np.int64).astype(np.int32).astype(np.int64)


def smmulr(a, b) -> np.ndarray:
    """SMMULR: the high word of a * b, rounded (vmcu_smmulr)."""
    return (np.asarray(a, np.int64) * np.asarray(b, np.int64) + (1 << 31)) >> 32


def smmlar(a, b, acc) -> np.ndarray:
    """SMMLAR: the high word of acc * 2^32 + a * b + 2^31 modulo 2^64 (vmcu_smmlar); the accumulator
    only adds to the high word, so that is acc + SMMULR(a, b), wrapped."""
    return int32(np.asarray(acc, np.int64) + smmulr(a, b))


def srdhm(a, b) -> np.ndarray:
    """vmcu_srdhm: floor((a * b + 2^30) / 2^31), INT32_MAX for INT32_MIN squared."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, (a * b + (1 << 30)) >> 31)


def rdbpot(x, exponent) -> np.ndarray:
    """vmcu_rdbpot: x / 2^exponent, halves away from zero."""
    x, exponent = np.asarray(x, np.int64), np.asarray(exponent, np.int64)
    mask = (np.int64(1) << exponent) - 1
    return (x >> exponent) + ((x & mask) > (mask >> 1) + (x < 0))


def requantize(x, multiplier, shift) -> np.ndarray:
    """vmcu_requantize: a left shift through a high multiply, or one 64-bit sum shifted right."""
    x, multiplier, shift = (np.asarray(v, np.int64) for v in (x, multiplier, shift))
    left = srdhm(int32(x << np.maximum(shift, 0)), multiplier)
    r = np.maximum(-shift, 1)  # the right-shift branch's r (shift < 0)
    a = x * multiplier + (1 << 30)
    a = a + (((np.int64(1) << (r - 1)) - (a < 0)) << 31)
    right = int32(a >> 32) >> (r - 1)
    special = (x == INT32_MIN) & (multiplier == INT32_MIN)
    right = np.where(special, rdbpot(INT32_MAX, r), right)
    return np.where(shift >= 0, left, right)


def requantize64(x, multiplier, shift) -> np.ndarray:
    """vmcu_requantize64: an int64 accumulator times the multiplier rounded to 16 bits, one rounding
    shift right by 15 - shift, the low 32 bits kept."""
    x, multiplier, shift = (np.asarray(v, np.int64) for v in (x, multiplier, shift))
    m16 = np.minimum((multiplier + 0x8000) >> 16, 0x7FFF)
    total = 15 - shift
    return int32((x * m16 + (np.int64(1) << (total - 1))) >> total)


def requantize_narrow(x, m2, r1, offset) -> np.ndarray:
    """vmcu_requantize_narrow (right shifts, normalized multipliers, |x| < 2^30) from the narrow
    tables' m2 = 2m - 2^32 and r1 = r - 1: SMMLAR(x, m2, x), then both roundings in two halvings."""
    x, r1 = np.asarray(x, np.int64), np.asarray(r1, np.int64)
    v = smmlar(x, m2, x)
    return (((v + (v >> 31)) >> r1) + (2 * np.asarray(offset, np.int64) + 1)) >> 1


def requantize_shifted(x, multiplier, shift, offset) -> np.ndarray:
    """vmcu_requantize_shifted (either sign, |x| * 2^max(shift, 0) < 2^30)."""
    x, shift = np.asarray(x, np.int64), np.asarray(shift, np.int64)
    left = np.maximum(shift, 0)
    right = left - shift
    v = smmulr(int32(x << (left + 1)), multiplier)
    return ((((v * 2) + (v >> 31)) >> right) + (2 * np.asarray(offset, np.int64) + 1)) >> 1


def clamp(x, lo, hi) -> np.ndarray:
    """vmcu_clamp (vmcu_sat8 is clamp to [-128, 127])."""
    return np.minimum(np.maximum(np.asarray(x, np.int64), lo), hi)


def add_s8_run(p: dict, a, b) -> np.ndarray:
    """vmcu_add_s8_run over element pairs: TFLite's ADD through the shifted form where the
    params allow it (with the converter's tables of scaled inputs where it wrote them), else the
    general one (vmcu_add_pair)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    left = p["left_shift"]
    general = p["input1_shift"] > 0 or p["input2_shift"] > 0 or p["output_shift"] > 0 or not 0 <= left <= 21
    if general:
        s1 = requantize(int32((a + p["input1_offset"]) * (1 << left)), p["input1_multiplier"], p["input1_shift"])
        s2 = requantize(int32((b + p["input2_offset"]) * (1 << left)), p["input2_multiplier"], p["input2_shift"])
        v = requantize(int32(s1 + s2), p["output_multiplier"], p["output_shift"]) + p["output_offset"]
    elif hasattr(p.get("input1_scaled"), "as_type") and hasattr(p.get("input2_scaled"), "as_type"):
        # the converter's tables of each input's scaled values, read as the C reads them
        total = int32(p["input1_scaled"].as_type("int32_t")[a + 128] + p["input2_scaled"].as_type("int32_t")[b + 128])
        multiplier, shift = p["output_multiplier"], p["output_shift"]
        if shift <= -1 and multiplier >= 1 << 30:
            v = requantize_narrow(total, int32(2 * multiplier), -shift - 1, p["output_offset"])
        else:
            v = requantize_shifted(total, multiplier, shift, p["output_offset"])
    else:
        x1 = requantize_shifted(int32((a + p["input1_offset"]) << left), p["input1_multiplier"], p["input1_shift"], 0)
        x2 = requantize_shifted(int32((b + p["input2_offset"]) << left), p["input2_multiplier"], p["input2_shift"], 0)
        v = requantize_shifted(int32(x1 + x2), p["output_multiplier"], p["output_shift"], p["output_offset"])
    return clamp(v, p["act_min"], p["act_max"])


def average(total, divisor: int, lo: int, hi: int) -> np.ndarray:
    """The fused average pool's mean: (sum +- divisor / 2) / divisor, C's division truncating."""
    total = np.asarray(total, np.int64)
    half = divisor // 2
    rounded = np.where(total > 0, total + half, total - half)
    quotient = np.abs(rounded) // divisor * np.sign(rounded)
    return clamp(quotient, lo, hi)
