"""BATCH_MATMUL reference kernel, int8, from TFLite's formula.

out[b, i, j] = clamp8(MBQM(sum_k (L[b, i, k] - zl) (R[b, k, j] - zr)) + zo), where L is the left
operand with its last two axes swapped when adj_x, R the right one swapped when adj_y, and a batch
axis of 1 repeats against the other operand's (numpy broadcasting). Sums wrap in int32.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel


class BatchMatMul(Kernel):
    kind = "BATCH_MATMUL"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        pending = iter(activations)
        lhs = (p.lhs_constant if p.lhs_constant is not None else next(pending)).reshape(p.lhs_shape)
        rhs = (p.rhs_constant if p.rhs_constant is not None else next(pending)).reshape(p.rhs_shape)
        a = lhs.astype(np.int64) - p.lhs_zero_point
        b = rhs.astype(np.int64) - p.rhs_zero_point
        if p.adj_x:
            a = np.swapaxes(a, -1, -2)
        if p.adj_y:
            b = np.swapaxes(b, -1, -2)
        acc = wrap_int32(np.matmul(a, b))  # exact in int64: |terms| < 2^16, at most 2^31 of them would overflow
        scaled = multiply_by_quantized_multiplier(acc, p.multiplier, p.shift)
        return np.clip(scaled + p.output_zero_point, -128, 127).astype(np.int8).reshape(p.output_shape)
