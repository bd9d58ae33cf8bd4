"""FULLY_CONNECTED reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class FullyConnected(Kernel):
    kind = "FULLY_CONNECTED"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("FULLY_CONNECTED")
