"""LOG_SOFTMAX reference kernel: TFLite's reference_ops LogSoftmaxQuantized for int8.

Per row: the sum of exps of the differences to the row maximum (gemmlowp fixed point, Q12), its
log (TFLite's log_x_for_x_greater_than_or_equal_to_1, Q5), then each difference minus that log,
brought to the output's 16/256 grid around 127; differences too small for the result become -128.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import INT32_MIN, multiply_by_quantized_multiplier, rounding_divide_by_pot, wrap_int32
from ..gemmlowp import exp_on_negative_values, log_x_for_x_at_least_1, rescale
from .base import Kernel

INPUT_BITS, ACCUMULATION_BITS, OUTPUT_BITS = 5, 12, 4


class LogSoftmax(Kernel):
    kind = "LOG_SOFTMAX"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = x.astype(np.int64).reshape(-1, x.shape[-1])
        out = np.empty(rows.shape, dtype=np.int64)
        for r, row in enumerate(rows):
            diff = row - row.max()
            in_q5 = multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift)
            exps = rescale(exp_on_negative_values(in_q5, INPUT_BITS), 0, ACCUMULATION_BITS)
            total = int(wrap_int32(np.where(diff >= p.diff_min, exps, 0).sum()))
            log_sum = log_x_for_x_at_least_1(total, ACCUMULATION_BITS, INPUT_BITS)
            shifted = int(wrap_int32(log_sum + INT32_MIN))
            adjusted_diff_min = max(p.diff_min - 1, int(multiply_by_quantized_multiplier(
                shifted, p.reverse_scaling_divisor, p.reverse_scaling_shift)))
            value = rounding_divide_by_pot(in_q5 - log_sum, 31 - INPUT_BITS - OUTPUT_BITS) + 127
            out[r] = np.where(diff > adjusted_diff_min, np.clip(value, -128, 127), -128)
        return out.astype(np.int8).reshape(x.shape)
