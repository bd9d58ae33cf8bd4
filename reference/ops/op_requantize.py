"""REQUANTIZE reference kernel: TFLite's reference Requantize between int8, int16 and int32, written
from its formula: (x - input zero point) scaled by the Q31 multiplier and shift, plus the output zero
point, clamped to the output type."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class Requantize(Kernel):
    kind = "REQUANTIZE"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        info = np.iinfo(p.output_dtype)
        scaled = multiply_by_quantized_multiplier(np.asarray(x, dtype=np.int64) - p.input_zero_point,
                                                  p.multiplier, p.shift)
        out = np.clip(scaled.astype(np.int64) + p.output_zero_point, info.min, info.max)
        return out.astype(p.output_dtype).reshape(p.output_shape)
