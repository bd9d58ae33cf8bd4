"""L2_NORMALIZATION reference kernel: TFLite's reference_integer_ops L2Normalization for int8.

Per row of the last dimension: the sum of squared offsets, its inverse square root as a
multiplier (GetInvSqrtQuantizedMultiplierExp), each value rescaled to the 1/128 grid.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from ..gemmlowp import inv_sqrt_multiplier
from .base import Kernel

OUTPUT_SCALE_BITS = 7


class L2Normalization(Kernel):
    kind = "L2_NORMALIZATION"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = x.astype(np.int64).reshape(-1, x.shape[-1]) - p.input_zero_point
        out = np.empty(rows.shape, dtype=np.int64)
        for r, row in enumerate(rows):
            multiplier, shift = inv_sqrt_multiplier(int((row * row).sum()))
            out[r] = multiply_by_quantized_multiplier(row, multiplier, shift + OUTPUT_SCALE_BITS)
        return np.clip(out, -128, 127).astype(np.int8).reshape(x.shape)
