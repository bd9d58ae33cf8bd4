"""UNPACK reference kernel: one index of the axis, the axis removed (TFLite Micro's Unpack, one
output per step as the passes split it)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Unpack(Kernel):
    kind = "UNPACK"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return x.reshape(p.input_shape)[:, p.begin[1], :].reshape(p.output_shape)
