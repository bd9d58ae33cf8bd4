"""vmcu_requantize_params from RequantizeParams: element count, each side's element size in bytes."""
from __future__ import annotations

import numpy as np

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_requantize_params", struct(
        count=int(np.prod(p.output_shape, dtype=np.int64)), input_bytes=np.dtype(p.input_dtype).itemsize,
        output_bytes=np.dtype(p.output_dtype).itemsize, input_zero_point=p.input_zero_point,
        output_zero_point=p.output_zero_point, multiplier=c_number(p.multiplier), shift=p.shift)
