"""C initializers of each step kind's params struct, one module per op (same stems as `ops/`).

`emit(step, graph, writer, name)` returns `(c_type, initializer)`; constant arrays (weights,
multipliers) go through `writer.array` so they land in flash.
"""
from __future__ import annotations

from typing import Callable

from ...graph import Graph
from ...steps import Step
from ..cwriter import CWriter
from . import (add, average_pool2d, concatenation, conv2d, depthwise_conv2d, fully_connected, inverted_bottleneck,
               logistic, max_pool2d, mean, mul, pad, quantize, resize_nearest_neighbor, softmax, transpose)

Emitter = Callable[[Step, Graph, CWriter, str], "tuple[str, str]"]

EMITTERS: dict[str, Emitter] = {
    "CONV_2D": conv2d.emit,
    "DEPTHWISE_CONV_2D": depthwise_conv2d.emit,
    "FULLY_CONNECTED": fully_connected.emit,
    "ADD": add.emit,
    "MUL": mul.emit,
    "AVERAGE_POOL_2D": average_pool2d.emit,
    "MAX_POOL_2D": max_pool2d.emit,
    "MEAN": mean.emit,
    "PAD": pad.emit,
    "SOFTMAX": softmax.emit,
    "CONCATENATION": concatenation.emit,
    "LOGISTIC": logistic.emit,
    "RESIZE_NEAREST_NEIGHBOR": resize_nearest_neighbor.emit,
    "TRANSPOSE": transpose.emit,
    "QUANTIZE": quantize.emit,
    "INVERTED_BOTTLENECK": inverted_bottleneck.emit,
}

# The runtime's vmcu_kind numbering (csrc/include/vmcu/vmcu_types.h).
KIND_IDS = {
    "CONV_2D": 0, "DEPTHWISE_CONV_2D": 1, "FULLY_CONNECTED": 2, "ADD": 3, "MUL": 4, "AVERAGE_POOL_2D": 5,
    "MAX_POOL_2D": 6, "MEAN": 7, "PAD": 8, "SOFTMAX": 9, "CONCATENATION": 10, "LOGISTIC": 11,
    "RESIZE_NEAREST_NEIGHBOR": 12, "TRANSPOSE": 13, "QUANTIZE": 14, "INVERTED_BOTTLENECK": 15,
}
