"""FULLY_CONNECTED reference kernel: TFLite's FullyConnected / FullyConnectedPerChannel on M rows,
int8 or 16x8 (int16 activations: accumulated in int64 with the 64-bit requantization where the bias
is int64, else in int32 with the 32-bit one, as TFLite Micro's Eval picks its kernel)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import wrap_int32
from .base import Kernel, exact_matmul, requantize16, requantize_channels


class FullyConnected(Kernel):
    kind = "FULLY_CONNECTED"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = x.reshape(p.rows, -1).astype(np.int64) + p.input_offset
        if getattr(p, "element", 1) == 2:
            return requantize16(exact_matmul(rows, p.filter.T), p.bias, p.requant, p.wide).reshape(p.output_shape)
        acc = wrap_int32(exact_matmul(rows, p.filter.T))  # [M, N], as an int32 accumulator holds it
        return requantize_channels(acc, p.bias, p.output_offset, p.requant).reshape(p.output_shape)
