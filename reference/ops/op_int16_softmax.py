"""INT16_SOFTMAX reference kernel: TFLite's reference_ops SoftmaxInt16, row by row over the last axis,
with its two interpolated 513-entry tables (from the params: the converter's LUTPopulate)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from .base import Kernel


def lookup(table: np.ndarray, value: np.ndarray) -> np.ndarray:
    """TFLite's int16 LUTLookup: entry 256 + value // 128, plus the rounded interpolation on the low 7 bits."""
    index = 256 + (value >> 7)
    offset = value & 0x7F
    base = table[index]
    slope = table[index + 1] - base
    return (base + ((slope * offset + 64) >> 7)).astype(np.int16).astype(np.int64)


def clz32(x: int) -> int:
    return 32 - int(x).bit_length()


class Int16Softmax(Kernel):
    kind = "INT16_SOFTMAX"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        exp_table = np.asarray(p.exp_table, dtype=np.int64)
        reciprocal_table = np.asarray(p.reciprocal_table, dtype=np.int64)
        rows = x.astype(np.int64).reshape(p.outer, p.depth)
        out = np.empty_like(rows)
        for r, row in enumerate(rows):
            diff = row - row.max()
            scaled = multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_shift)
            exps = lookup(exp_table, np.clip(scaled + 32767, -32768, 32767))
            total = int(exps.sum())
            headroom = clz32(total)
            shifted = ((total << (headroom - 1)) + (1 << 13)) >> 14
            reciprocal = int(lookup(reciprocal_table, np.array(min(max(shifted - (1 << 15) - (1 << 16), -32768),
                                                                   32767))))
            right = 31 - headroom
            out[r] = np.clip((exps * reciprocal + (1 << (right - 1))) >> right, 0, 32767)
        return out.astype(np.int16).reshape(x.shape)
