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
    """One value to the int8 grid, dividing in float32 and rounding half away, as TFLite does."""
    return zero_point + int(tflite_round(float(np.float32(real) / np.float32(scale))))


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
