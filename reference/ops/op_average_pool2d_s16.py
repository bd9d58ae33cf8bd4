"""AVERAGE_POOL_2D_S16 reference kernel: TFLite's integer AveragePool over int16 values (the int8
kernel's arithmetic: its sums and counts do not depend on the width)."""
from __future__ import annotations

import numpy as np

from .op_average_pool2d import AveragePool2D


class AveragePool2DS16(AveragePool2D):
    kind = "AVERAGE_POOL_2D_S16"

    def run(self, x: np.ndarray) -> np.ndarray:
        return self.mean(np.asarray(x, dtype=np.int16)).astype(np.int16)
