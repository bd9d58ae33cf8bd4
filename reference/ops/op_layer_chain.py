"""LAYER_CHAIN: a fused chain computes exactly what its layers compute one after another.

The values are those of the unfused kernels (int16 ones for a chain of 16x8 layers); fusion changes
only where the intermediate rows live, which the step's kernel description replays over the
simulated pool.
"""
from __future__ import annotations

import numpy as np

from vmcu_tflite.chain import is_depthwise, is_transpose

from .base import Kernel
from .op_add import Add
from .op_average_pool2d import AveragePool2D
from .op_average_pool2d_s16 import AveragePool2DS16
from .op_conv2d import Conv2D
from .op_depthwise_conv2d import DepthwiseConv2D
from .op_transpose import Transpose


class LayerChain(Kernel):
    kind = "LAYER_CHAIN"

    def __init__(self, params) -> None:
        super().__init__(params)
        self.layers = [Transpose(layer) if is_transpose(layer) else DepthwiseConv2D(layer) if is_depthwise(layer)
                       else Conv2D(layer) for layer in params.layers]
        if params.pool is not None:  # the int16 pool after 16x8 layers
            pool = AveragePool2DS16 if getattr(params.layers[-1], "element", 1) == 2 else AveragePool2D
            self.layers.append(pool(params.pool))

    def run(self, x: np.ndarray) -> np.ndarray:
        y = x
        for layer in self.layers:
            y = layer.run(y)
        if self.params.add is None:
            return y
        add = Add(self.params.add)
        return add.run(x, y) if self.params.residual_first else add.run(y, x)
