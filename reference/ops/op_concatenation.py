"""CONCATENATION reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Concatenation(Kernel):
    kind = "CONCATENATION"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("CONCATENATION")
