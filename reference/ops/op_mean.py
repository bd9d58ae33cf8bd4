"""MEAN reference kernel: TFLite's QuantizedMeanOrSum for int8 (int32 sums, one requantization)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel


class Mean(Kernel):
    kind = "MEAN"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        total = wrap_int32(x.astype(np.int64).sum(axis=p.axes))
        shifted = wrap_int32(total - p.input_zero_point * p.count)
        scaled = multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift) + p.output_zero_point
        return np.clip(scaled, -128, 127).astype(np.int8).reshape(p.output_shape)
