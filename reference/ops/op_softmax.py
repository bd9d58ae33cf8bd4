"""SOFTMAX reference kernel: TFLite's quantized reference Softmax for int8 -> int8."""
from __future__ import annotations

import numpy as np

from vmcu_tflite.errors import ModelError

from ..fixed_point import (multiply_by_quantized_multiplier_greater_than_one, rounding_divide_by_pot,
                           saturating_rounding_doubling_high_mul, wrap_int32)
from ..gemmlowp import exp_on_negative_values, get_reciprocal, rescale
from .base import Kernel

SCALED_DIFF_INTEGER_BITS = 5
ACCUMULATION_INTEGER_BITS = 12


class Softmax(Kernel):
    kind = "SOFTMAX"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        x = x.astype(np.int64)
        diff = x - x.max(axis=-1, keepdims=True)
        counted = diff >= p.diff_min
        rescaled = multiply_by_quantized_multiplier_greater_than_one(np.where(counted, diff, 0), p.input_multiplier,
                                                                     p.input_left_shift)
        exps = exp_on_negative_values(rescaled, SCALED_DIFF_INTEGER_BITS)  # Q0.31
        in_accumulator = rescale(exps, 0, ACCUMULATION_INTEGER_BITS)
        sum_of_exps = wrap_int32(np.where(counted, in_accumulator, 0).sum(axis=-1, keepdims=True))
        shifted_scale, num_bits_over_unit = get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS)
        exponent = num_bits_over_unit + 31 - 8
        if np.any((exponent < 0) | (exponent > 31)):  # TFLite Micro aborts here (TFLITE_CHECK)
            raise ModelError("SOFTMAX: a row's sum of exponentials is too large for TFLite's int8 softmax "
                             "(TFLite Micro aborts on this input)")
        unsaturated = rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted_scale, exps), exponent)
        result = np.clip(unsaturated - 128, -128, 127)
        return np.where(counted, result, -128).astype(np.int8)
