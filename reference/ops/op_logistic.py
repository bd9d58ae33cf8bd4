"""LOGISTIC reference kernel: TFLite's reference_integer_ops Logistic for int8."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, rounding_divide_by_pot
from ..gemmlowp import logistic
from .base import Kernel

INPUT_INTEGER_BITS = 4


def saturating_fixed_point(p, x: np.ndarray, function, output_bits: int, output_offset: int) -> np.ndarray:
    """LOGISTIC's and TANH's int8 path: inputs at or beyond the radius saturate; the others go to
    Q4.27, through `function` (a raw Q0.31 result), then to `output_bits` fractional bits."""
    centered = x.astype(np.int64) - p.input_zero_point
    inside = np.abs(centered) < p.input_range_radius
    in_q4 = multiply_by_quantized_multiplier(np.where(inside, centered, 0), p.input_multiplier, p.input_left_shift)
    scaled = rounding_divide_by_pot(function(in_q4, INPUT_INTEGER_BITS), 31 - output_bits) + output_offset
    result = np.clip(scaled, -128, 127)
    result = np.where(centered >= p.input_range_radius, 127, result)
    result = np.where(centered <= -p.input_range_radius, -128, result)  # checked first by TFLite
    return result.astype(np.int8)


class Logistic(Kernel):
    kind = "LOGISTIC"

    def run(self, x: np.ndarray) -> np.ndarray:
        return saturating_fixed_point(self.params, x, logistic, output_bits=8, output_offset=-128)
