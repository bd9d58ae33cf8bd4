"""INT16_UNARY reference kernel: TFLite Micro's int16 ReluQuantized, Relu6Quantized and
QuantizeLeakyRelu."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


class Int16Unary(Kernel):
    kind = "INT16_UNARY"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        if p.operation == "RELU6":  # the raw value between the input's 0 and 6
            return np.minimum(np.maximum(x, p.act_min), p.act_max).astype(np.int16)
        value = x.astype(np.int64) - p.input_offset
        identity = multiply_by_quantized_multiplier(value, p.identity_multiplier, p.identity_shift)
        if p.operation == "RELU":
            result = identity
        else:
            alpha = multiply_by_quantized_multiplier(value, abs(p.alpha_multiplier), p.alpha_shift)
            result = np.where(value >= 0, identity, -alpha if p.alpha_multiplier < 0 else alpha)
        return np.clip(p.output_offset + result, p.act_min, p.act_max).astype(np.int16)
