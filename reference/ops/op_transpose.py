"""TRANSPOSE reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Transpose(Kernel):
    kind = "TRANSPOSE"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("TRANSPOSE")
