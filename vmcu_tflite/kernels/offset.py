"""The input offset folded into the bias at conversion time, where every dot product reads a whole filter row.

sum_i (x_i + o) w_i = sum_i x_i w_i + o * sum_i w_i. In a GEMM (fully connected, pointwise) and in a
convolution that gathers each pixel's whole window, taps outside the input held at -o (`conv.py`), every
output value's dot product runs over its channel's whole filter row, so the second term is a constant of
the channel. The converter adds it to the bias, the C table holds that sum, and the kernel's dot products
add no offset (their description says 0). The accumulator ends with the same value as TFLite's.

That takes the offset out of the inner loops: on Helium a dot product is VMLADAVA over the int8 rows as
they are (no widening, no running sum of the weights), on the DSP path SXTB16 replaces SXTAB16 at the same
cost, on the portable path one add per product goes.

It is done only where no partial sum can leave int32, for any int8 input: per channel
|bias| + 256 * sum |w| < 2^31 (the folded bias is below |bias| + 128 * sum |w|, since |o| <= 128, and the
products added to it below another 128 * sum |w|). A layer past that bound keeps its bias and offset.
"""
from __future__ import annotations

import numpy as np

from .window import conv_way

PARTIAL_LIMIT = 1 << 31
WHOLE_ROW_WAYS = ("pixel", "gather")  # conv_way's ways that read every tap of the window


def folds_offset(p) -> bool:
    """Whether layer `p` (convolution or fully connected params) takes its input offset in its bias."""
    if hasattr(p, "padding") and conv_way(p) not in WHOLE_ROW_WAYS:
        return False
    weights = np.abs(_rows(p.filter)).sum(axis=1)
    bound = np.abs(np.asarray(p.bias, dtype=np.int64)).reshape(-1) + 256 * weights
    return bool(len(bound)) and int(bound.max()) < PARTIAL_LIMIT


def dot_offset(p, params: str) -> str:
    """The C expression of the offset the layer's dot products add: 0 where it is folded."""
    return "0" if folds_offset(p) else f"{params}->input_offset"


def kernel_bias(p) -> np.ndarray:
    """The bias table the C holds for layer `p`: bias + input_offset * sum(w) per output channel where the
    offset is folded, else the bias."""
    bias = np.asarray(p.bias, dtype=np.int64).reshape(-1)
    if not folds_offset(p):
        return bias
    return bias + int(p.input_offset) * _rows(p.filter).sum(axis=1)


def _rows(filter_: np.ndarray) -> np.ndarray:
    """One row per output channel (axis 0 of both a convolution's and a fully connected filter)."""
    weights = np.asarray(filter_, dtype=np.int64)
    return weights.reshape(weights.shape[0], -1)
