"""TRANSPOSE reference kernel."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Transpose(Kernel):
    kind = "TRANSPOSE"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.ascontiguousarray(np.transpose(x, p.perm)).astype(x.dtype)
