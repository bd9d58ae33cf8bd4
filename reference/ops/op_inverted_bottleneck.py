"""INVERTED_BOTTLENECK: a fused block computes exactly what its layers compute one after another.

The values are those of the unfused kernels (same integer arithmetic, same rounding); what
fusion changes is only where the intermediates live, which `reference/streaming.py` replays.
"""
from __future__ import annotations

import numpy as np

from .base import Kernel
from .op_add import Add
from .op_conv2d import Conv2D
from .op_depthwise_conv2d import DepthwiseConv2D


class InvertedBottleneck(Kernel):
    kind = "INVERTED_BOTTLENECK"

    def __init__(self, params) -> None:
        super().__init__(params)
        self.expand = Conv2D(params.expand) if params.expand is not None else None
        self.depthwise = DepthwiseConv2D(params.depthwise)
        self.project = Conv2D(params.project)
        self.add = Add(params.add) if params.add is not None else None

    def run(self, x: np.ndarray) -> np.ndarray:
        y = self.expand.run(x) if self.expand else x
        y = self.project.run(self.depthwise.run(y))
        if self.add is None:
            return y
        return self.add.run(x, y) if self.params.residual_first else self.add.run(y, x)
