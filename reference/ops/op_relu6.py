"""RELU6 reference kernel: TFLite Micro's Relu6Quantized for int8, a clamp of the raw input between
the input's quantized 0 and 6 (no rescaling: TFLite Micro ignores the output's quantization)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Relu6(Kernel):
    kind = "RELU6"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.where(x > p.upper, p.upper, np.where(x < p.lower, p.lower, x)).astype(np.int8)
