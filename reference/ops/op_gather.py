"""GATHER reference kernel: numpy's take along the axis (TFLite's Gather with batch_dims 0)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Gather(Kernel):
    kind = "GATHER"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.take(x, p.indices, axis=p.axis).reshape(p.output_shape)
