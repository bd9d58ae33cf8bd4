"""BATCH_MATMUL_S16 reference kernel: TFLite's int16 BatchMatMul, from its formula.

out[b, i, j] = clamp16(MBQM64(sum_k L[b, i, k] R[b, k, j])), the sum exact in int64 (zero points
are 0), MBQM64 TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator; L and R as the int8
kernel reads them (adj_x, adj_y, batch axes of 1 broadcast).
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier_64
from .base import Kernel


class BatchMatMulS16(Kernel):
    kind = "BATCH_MATMUL_S16"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        pending = iter(activations)
        lhs = (p.lhs_constant if p.lhs_constant is not None else next(pending)).reshape(p.lhs_shape)
        rhs = (p.rhs_constant if p.rhs_constant is not None else next(pending)).reshape(p.rhs_shape)
        a, b = lhs.astype(np.int64), rhs.astype(np.int64)
        if p.adj_x:
            a = np.swapaxes(a, -1, -2)
        if p.adj_y:
            b = np.swapaxes(b, -1, -2)
        acc = np.matmul(a, b)  # exact: |terms| <= 2^30, at most 2^17 of them (prepare's bound)
        scaled = multiply_by_quantized_multiplier_64(acc, p.multiplier, p.shift)
        return np.clip(scaled, -32768, 32767).astype(np.int16).reshape(p.output_shape)
