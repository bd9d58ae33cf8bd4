"""The explicit op registry: TFLite op name -> module with `prepare(graph, op) -> params`.

Each module under this package handles one TFLite op (its reference kernel is
`vmcu_reference/ops/op_<same stem>.py`). RESHAPE and SQUEEZE never become steps: the passes turn
them into aliases of their input's bytes.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

from ..graph import Graph, Op
from . import (add, average_pool2d, concatenation, conv2d, depthwise_conv2d, dequantize, fully_connected,
               logistic, max_pool2d, mean, mul, pad, quantize, resize_nearest_neighbor, softmax, transpose)

OP_MODULES: dict[str, ModuleType] = {m.KIND: m for m in (
    add, average_pool2d, concatenation, conv2d, depthwise_conv2d, dequantize, fully_connected, logistic,
    max_pool2d, mean, mul, pad, quantize, resize_nearest_neighbor, softmax, transpose)}

ALIAS_OPS = frozenset({"RESHAPE", "SQUEEZE"})
SUPPORTED_OPS = frozenset(OP_MODULES) | ALIAS_OPS


def prepare(graph: Graph, op: Op) -> Any:
    """Everything the op's kernel needs at run time, computed once from the graph."""
    return OP_MODULES[op.kind].prepare(graph, op)


def macs(kind: str, params: Any) -> int:
    """Multiply-accumulates of conv, depthwise and fully connected kernels; 0 for other ops."""
    count = getattr(OP_MODULES[kind], "macs", None)
    return count(params) if count is not None else 0
