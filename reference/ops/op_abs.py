"""ABS reference kernel: TFLite Micro's AbsEvalQuantized for int8."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class Abs(Kernel):
    kind = "ABS"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        value = np.abs(x.astype(np.int64) - p.input_zero_point)
        if p.rescale:
            value = multiply_by_quantized_multiplier(value, p.multiplier, p.shift)
        return np.clip(value + p.output_zero_point, -128, 127).astype(np.int8)
