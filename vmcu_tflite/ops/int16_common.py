"""What the int16 ("16x8") paths of the elementwise ops share: the int16 tensor checks and the fused
activation's clamp in the int16 domain (TFLite's CalculateActivationRangeQuantized for an int16
output: the same rounding as int8's, bounded by -32768..32767)."""
from __future__ import annotations

import numpy as np

from ..graph import Graph, Op, Tensor
from ..quant import quantize, tflite_round
from .common import require

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1


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


def int16_activation_range(op: Op, out: Tensor) -> tuple[int, int]:
    """The clamp of the op's fused activation in the int16 output's domain."""
    act = op.options.fused_activation_function
    require(act in (0, 1, 2, 3), op, f"fused activation {act} is not supported")
    try:
        lo, hi = {0: (None, None), 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}[act]
        return (INT16_MIN if lo is None else max(INT16_MIN, quantize(lo, out.scale, out.zero_point)),
                INT16_MAX if hi is None else min(INT16_MAX, quantize(hi, out.scale, out.zero_point)))
    except ValueError:
        require(False, op, f"output scale {out.scale:g} is too small for its fused activation's bounds")


def checked_log2(x: float) -> tuple[int, bool]:
    """TFLite's CheckedLog2 in float32: (log2 rounded, whether `x` is a power of two within 1e-3 of
    an octave)."""
    log2 = np.float32(np.log(np.float32(x))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    rounded = np.float32(tflite_round(float(log2)))
    return int(rounded), abs(float(np.float32(log2 - rounded))) < 1e-3
