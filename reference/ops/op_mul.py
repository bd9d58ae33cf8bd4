"""MUL reference kernel: TFLite's reference_integer_ops MulElementwise, broadcast like numpy."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel, with_constants
from .op_add import broadcast_operands


class Mul(Kernel):
    kind = "MUL"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        a, b = broadcast_operands(*with_constants(p.constants, activations))
        product = (a + p.input1_offset) * (b + p.input2_offset)
        raw = multiply_by_quantized_multiplier(product, p.output_multiplier, p.output_shift) + p.output_offset
        return np.clip(raw, p.act_min, p.act_max).astype(np.int8).reshape(p.output_shape)
