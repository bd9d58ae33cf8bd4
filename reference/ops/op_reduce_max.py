"""REDUCE_MAX reference kernel: numpy's max over the axes (TFLite's ReduceGeneric with max)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class ReduceMax(Kernel):
    kind = "REDUCE_MAX"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.max(x.reshape(p.input_shape), axis=p.axes).astype(np.int8).reshape(p.output_shape)
