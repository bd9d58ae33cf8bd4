"""RELU reference kernel: TFLite Micro's ReluQuantized for int8 (rescale, then clamp at zero)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class Relu(Kernel):
    kind = "RELU"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        scaled = p.output_zero_point + multiply_by_quantized_multiplier(
            x.astype(np.int64) - p.input_zero_point, p.multiplier, p.shift)
        return np.clip(scaled, p.act_min, p.act_max).astype(np.int8)
