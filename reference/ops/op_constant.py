"""CONSTANT reference kernel: the folded output's bytes (what TFLite recomputes from constants)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Constant(Kernel):
    kind = "CONSTANT"

    def run(self) -> np.ndarray:
        return np.array(self.params.data, dtype=np.int8).reshape(self.params.output_shape)
