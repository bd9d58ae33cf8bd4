"""RESIZE_NEAREST_NEIGHBOR reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class ResizeNearestNeighbor(Kernel):
    kind = "RESIZE_NEAREST_NEIGHBOR"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("RESIZE_NEAREST_NEIGHBOR")
