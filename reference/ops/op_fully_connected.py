"""FULLY_CONNECTED reference kernel: TFLite's FullyConnected / FullyConnectedPerChannel on M rows."""
from __future__ import annotations

import numpy as np

from ..fixed_point import wrap_int32
from .base import Kernel, exact_matmul, requantize_channels


class FullyConnected(Kernel):
    kind = "FULLY_CONNECTED"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = x.reshape(p.rows, -1).astype(np.int64) + p.input_offset
        acc = wrap_int32(exact_matmul(rows, p.filter.T))  # [M, N], as an int32 accumulator holds it
        return requantize_channels(acc, p.bias, p.output_offset, p.requant).reshape(p.output_shape)
