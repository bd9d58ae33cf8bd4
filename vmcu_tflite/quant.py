"""Quantization arithmetic done ahead of time (TFLite Micro does it in each kernel's Prepare).

Names follow their TFLite Micro counterparts so a reader can hold the two side by side.
"""
from __future__ import annotations

import math

import numpy as np

INT8_MIN, INT8_MAX = -128, 127

# TFLite's ActivationFunctionType values, as stored in op options.
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6 = 0, 1, 2, 3


def tflite_round(x: float) -> float:
    """std::round: halves go away from zero (Python's round() goes to even)."""
    return math.copysign(math.floor(abs(x) + 0.5), x)


def quantize_multiplier(real_multiplier: float) -> tuple[int, int]:
    """Q31 significand and power-of-two exponent with real = significand * 2**(exponent - 31).

    As TFLite's QuantizeMultiplier (double rounding build): exponents below -31 flush to zero.
    """
    if real_multiplier == 0.0:
        return 0, 0
    significand, exponent = math.frexp(real_multiplier)
    q_fixed = int(tflite_round(significand * (1 << 31)))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        exponent += 1
    if exponent < -31:
        return 0, 0
    return q_fixed, exponent


def quantize(real: float, scale: float, zero_point: int) -> int:
    """One value to the int8 grid, dividing in float32 and rounding half away, as TFLite does; like
    TFLite, ValueError when the quotient does not fit int32 (a scale far too small)."""
    quotient = tflite_round(float(np.float32(real) / np.float32(scale)))
    if not -2.0 ** 31 <= quotient <= 2.0 ** 31 - 1:
        raise ValueError(f"{real} / {scale} overflows int32")
    return zero_point + int(quotient)


def activation_range(activation: int, scale: float, zero_point: int) -> tuple[int, int]:
    """Clamp bounds of a fused activation in the output's int8 domain (CalculateActivationRangeQuantized)."""
    if activation == ACT_NONE:
        return INT8_MIN, INT8_MAX
    if activation == ACT_RELU:
        return max(INT8_MIN, quantize(0.0, scale, zero_point)), INT8_MAX
    if activation == ACT_RELU6:
        return (max(INT8_MIN, quantize(0.0, scale, zero_point)),
                min(INT8_MAX, quantize(6.0, scale, zero_point)))
    if activation == ACT_RELU_N1_TO_1:
        return (max(INT8_MIN, quantize(-1.0, scale, zero_point)),
                min(INT8_MAX, quantize(1.0, scale, zero_point)))
    raise ValueError(f"unsupported fused activation {activation}")


def quantize_multiplier_smaller_than_one_exp(real_multiplier: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplierSmallerThanOneExp: a multiplier in (0, 1), shift <= 0.

    TFLite aborts outside that range; callers validate first, this raises ValueError.
    """
    if not 0.0 < real_multiplier < 1.0:
        raise ValueError(f"multiplier {real_multiplier} is not in (0, 1)")
    multiplier, shift = quantize_multiplier(real_multiplier)
    if shift > 0:
        raise ValueError(f"multiplier {real_multiplier} rounds up to 1")
    return multiplier, shift


def quantize_multiplier_greater_than_one(real_multiplier: float) -> tuple[int, int]:
    """TFLite's QuantizeMultiplierGreaterThanOne: a multiplier above 1, left shift >= 0."""
    if not real_multiplier > 1.0:
        raise ValueError(f"multiplier {real_multiplier} is not above 1")
    return quantize_multiplier(real_multiplier)


def preprocess_softmax_scaling(beta: float, input_scale: float, input_integer_bits: int) -> tuple[int, int]:
    """TFLite's PreprocessSoftmaxScaling (double rounding build): beta * scale as a Q(bits) multiplier.

    Returns (multiplier, left_shift). The real multiplier is capped at 2**31 - 1 and must exceed 1.
    """
    real = min(float(beta) * float(input_scale) * float(1 << (31 - input_integer_bits)), float((1 << 31) - 1))
    return quantize_multiplier_greater_than_one(real)


def calculate_input_radius(input_integer_bits: int, input_left_shift: int, total_signed_bits: int = 31) -> int:
    """TFLite's CalculateInputRadius: the largest input difference whose rescaled value still fits."""
    max_input_rescaled = (1.0 * ((1 << input_integer_bits) - 1) * float(1 << (total_signed_bits - input_integer_bits))
                          / float(1 << input_left_shift))
    return int(math.floor(max_input_rescaled))
