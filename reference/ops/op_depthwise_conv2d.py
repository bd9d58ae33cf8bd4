"""DEPTHWISE_CONV_2D reference kernel (not implemented yet)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class DepthwiseConv2D(Kernel):
    kind = "DEPTHWISE_CONV_2D"

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError("DEPTHWISE_CONV_2D")
