"""The explicit kernel registry: TFLite op name -> reference kernel class.

One class per op in `op_<stem>.py`, the stem shared with `vmcu_tflite/ops/<stem>.py`, whose
`prepare` builds the params the kernel is constructed with. RESHAPE and SQUEEZE have no kernel:
they only rename bytes (see `vmcu_tflite.passes`).
"""
from __future__ import annotations

from .op_add import Add
from .op_average_pool2d import AveragePool2D
from .op_concatenation import Concatenation
from .op_conv2d import Conv2D
from .op_depthwise_conv2d import DepthwiseConv2D
from .op_dequantize import Dequantize
from .op_fully_connected import FullyConnected
from .op_inverted_bottleneck import InvertedBottleneck
from .op_logistic import Logistic
from .op_max_pool2d import MaxPool2D
from .op_mean import Mean
from .op_mul import Mul
from .op_pad import Pad
from .op_quantize import Quantize
from .op_resize_nearest_neighbor import ResizeNearestNeighbor
from .op_softmax import Softmax
from .op_transpose import Transpose
from .base import Kernel

KERNELS: dict[str, type[Kernel]] = {k.kind: k for k in (
    Add, AveragePool2D, Concatenation, Conv2D, DepthwiseConv2D, Dequantize, FullyConnected, InvertedBottleneck,
    Logistic, MaxPool2D, Mean, Mul, Pad, Quantize, ResizeNearestNeighbor, Softmax, Transpose)}


def make_kernel(kind: str, params) -> Kernel:
    return KERNELS[kind](params)
