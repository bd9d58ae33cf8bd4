"""MUL reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Mul(Kernel):
    kind = "MUL"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("MUL")
