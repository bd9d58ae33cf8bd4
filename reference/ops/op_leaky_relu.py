"""LEAKY_RELU reference kernel: TFLite's QuantizeLeakyRelu for int8.

Non-negative inputs are rescaled by input/output scale, negative ones by alpha times that; a
negative alpha multiplier is applied to the magnitude and the result negated, as TFLite does.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class LeakyRelu(Kernel):
    kind = "LEAKY_RELU"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        value = x.astype(np.int64) - p.input_zero_point
        identity = multiply_by_quantized_multiplier(value, p.identity_multiplier, p.identity_shift)
        alpha = multiply_by_quantized_multiplier(value, abs(p.alpha_multiplier), p.alpha_shift)
        if p.alpha_multiplier < 0:
            alpha = -alpha
        return np.clip(p.output_zero_point + np.where(value >= 0, identity, alpha), -128, 127).astype(np.int8)
