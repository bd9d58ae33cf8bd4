"""FULLY_CONNECTED reference kernel: TFLite's FullyConnected / FullyConnectedPerChannel on M rows,
int8 or 16x8 (int16 activations: accumulated in int64 with the 64-bit requantization where the bias
is int64, else in int32 with the 32-bit one, as TFLite Micro's Eval picks its kernel)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64, wrap_int32
from .base import Kernel, exact_matmul, requantize_channels


class FullyConnected(Kernel):
    kind = "FULLY_CONNECTED"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = x.reshape(p.rows, -1).astype(np.int64) + p.input_offset
        if getattr(p, "element", 1) == 2:
            return requantize16(exact_matmul(rows, p.filter.T), p.bias, p.requant, p.wide).reshape(p.output_shape)
        acc = wrap_int32(exact_matmul(rows, p.filter.T))  # [M, N], as an int32 accumulator holds it
        return requantize_channels(acc, p.bias, p.output_offset, p.requant).reshape(p.output_shape)


def requantize16(products: np.ndarray, bias: np.ndarray, requant, wide: bool) -> np.ndarray:
    """Exact sums of products [..., C] + bias -> int16: int64 accumulators and the 64-bit
    MultiplyByQuantizedMultiplier (`wide`), or int32 ones and the 32-bit form; the int16 clamp."""
    multiplier = np.asarray(requant.multiplier, dtype=np.int64)
    shift = np.asarray(requant.shift, dtype=np.int64)
    acc = np.asarray(products, dtype=np.int64) + np.asarray(bias, dtype=np.int64)
    if wide:
        scaled = multiply_by_quantized_multiplier_64(acc, multiplier, shift)
    else:
        scaled = multiply_by_quantized_multiplier(wrap_int32(acc), multiplier, shift)
    return np.clip(scaled, requant.act_min, requant.act_max).astype(np.int16)
