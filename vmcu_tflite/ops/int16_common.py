"""What the int16 ("16x8") paths of the elementwise ops share: which path an op takes, the int16
tensor checks, TFLite's CheckedLog2 and the access pattern of their element-by-element
kernels. (No options are read here: the op-options test follows these imports.)"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..graph import Graph, Op, Tensor
from ..planner.access import AccessPattern, elementwise
from ..quant import tflite_round
from .common import require

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1

if TYPE_CHECKING:
    from ..steps import Step


def is_int16(graph: Graph, op: Op) -> bool:
    """Whether any activation input or the output of the op is int16 (the op takes its int16 path)."""
    return any(t >= 0 and graph.tensors[t].dtype == "int16" for t in op.inputs + op.outputs[:1])


def check_int16(op: Op, named: tuple[tuple[str, Tensor], ...], zero_point_zero: bool) -> None:
    """Every tensor int16 with one positive per-tensor scale; `zero_point_zero`: TFLite Micro's
    Prepare of this op requires int16 zero points of 0."""
    for name, t in named:
        require(t.dtype == "int16", op, f"{name} is {t.dtype}: the int16 {op.kind} needs int16 inputs and output")
        require(t.quant is not None and not t.quant.per_channel, op, f"{name} needs a per-tensor scale")
        require(t.scale > 0, op, f"{name} scale {t.scale} is not positive")
        if zero_point_zero:
            require(t.zero_point == 0, op, f"{name} zero point {t.zero_point} is not 0 (int16 needs 0)")


def checked_log2(x: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (log2 rounded, whether `x` is a power of two within 1e-3 of
    an octave)."""
    log2 = np.float32(np.log(np.float32(x))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(tflite_round(float(log2)))
    return int(rounded), abs(float(np.float32(log2 - rounded))) < 1e-3


def element_by_element(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """The int16 element-wise kernels read element i of a same-shape operand, then write element i,
    whatever the planner's segment (they keep no segment buffer): one iteration per 2-byte element. A
    broadcast operand does not stream."""
    x, y = graph.tensors[step.inputs[position]], graph.tensors[step.outputs[0]]
    if x.shape != y.shape:
        return None
    return elementwise(y.num_bytes, 2)
