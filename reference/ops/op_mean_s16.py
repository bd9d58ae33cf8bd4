"""MEAN_S16 reference kernel: TFLite's QuantizedMeanOrSum for int16 (int32 sums, one requantization,
the int16 clamp)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel


class MeanS16(Kernel):
    kind = "MEAN_S16"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        total = wrap_int32(np.asarray(x, dtype=np.int64).sum(axis=p.axes))
        shifted = wrap_int32(total - p.input_zero_point * p.count)
        scaled = multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift) + p.output_zero_point
        return np.clip(scaled, -32768, 32767).astype(np.int16).reshape(p.output_shape)
