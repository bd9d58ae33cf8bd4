"""TILE reference kernel: numpy's tile (TFLite's Tile: the input repeated along each axis)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Tile(Kernel):
    kind = "TILE"

    def run(self, x: np.ndarray) -> np.ndarray:
        return np.tile(x, self.params.multiples)
