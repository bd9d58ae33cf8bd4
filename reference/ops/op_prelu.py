"""PRELU reference kernel: TFLite's reference_ops BroadcastPrelu4DSlow for int8."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel, with_constants
from .op_add import broadcast_operands


class Prelu(Kernel):
    kind = "PRELU"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        x, alpha = broadcast_operands(*with_constants(p.constants, activations))
        value = x + p.input_offset
        positive = multiply_by_quantized_multiplier(value, p.identity_multiplier, p.identity_shift)
        negative = multiply_by_quantized_multiplier(value * (alpha + p.alpha_offset), p.alpha_multiplier,
                                                    p.alpha_shift)
        out = np.where(value >= 0, positive, negative) + p.output_offset
        return np.clip(out, -128, 127).astype(np.int8).reshape(p.output_shape)
