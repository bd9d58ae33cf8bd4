"""LOGISTIC reference kernel: TFLite's reference_integer_ops Logistic for int8."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, rounding_divide_by_pot
from ..gemmlowp import logistic
from .base import Kernel

INPUT_INTEGER_BITS = 4
OUTPUT_INTEGER_BITS = 8


class Logistic(Kernel):
    kind = "LOGISTIC"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        centered = x.astype(np.int64) - p.input_zero_point
        inside = np.abs(centered) < p.input_range_radius
        in_q4 = multiply_by_quantized_multiplier(np.where(inside, centered, 0), p.input_multiplier,
                                                 p.input_left_shift)
        in_q0 = logistic(in_q4, INPUT_INTEGER_BITS)
        scaled = rounding_divide_by_pot(in_q0, 31 - OUTPUT_INTEGER_BITS) - 128
        result = np.clip(scaled, -128, 127)
        result = np.where(centered >= p.input_range_radius, 127, result)
        result = np.where(centered <= -p.input_range_radius, -128, result)  # checked first by TFLite
        return result.astype(np.int8)
