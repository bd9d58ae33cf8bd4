"""DEQUANTIZE reference kernel: TFLite's reference Dequantize for int8 or int16 -> float32."""
from __future__ import annotations

import numpy as np

from .base import Kernel


def dequantize(x: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """int8 -> float32 as TFLite: the product scale * (q - zero_point) in double, then cast to float.

    `scale` is the tensor's float32 scale (exactly representable as a Python float).
    """
    diff = np.asarray(x, dtype=np.int64) - zero_point
    return (np.float64(scale) * diff.astype(np.float64)).astype(np.float32)


class Dequantize(Kernel):
    kind = "DEQUANTIZE"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return dequantize(x, p.scale, p.zero_point).reshape(p.output_shape)
