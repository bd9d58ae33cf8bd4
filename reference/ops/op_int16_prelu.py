"""INT16_PRELU reference kernel: TFLite's BroadcastPrelu4DSlow with int16 data and an int8 alpha."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class Int16Prelu(Kernel):
    kind = "INT16_PRELU"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        value, alpha = np.broadcast_arrays(x.astype(np.int64) + p.input_offset,
                                           np.asarray(p.alpha, dtype=np.int64) + p.alpha_offset)
        positive = multiply_by_quantized_multiplier(value, p.identity_multiplier, p.identity_shift)
        negative = multiply_by_quantized_multiplier(value * alpha, p.alpha_multiplier, p.alpha_shift)
        out = np.where(value >= 0, positive, negative) + p.output_offset
        return np.clip(out, -32768, 32767).astype(np.int16).reshape(p.output_shape)
