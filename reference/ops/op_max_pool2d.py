"""MAX_POOL_2D reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class MaxPool2D(Kernel):
    kind = "MAX_POOL_2D"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("MAX_POOL_2D")
