"""vmcu_quantize_params from QuantizeParams (int8 -> int8; float input only exists at the model boundary)."""
from __future__ import annotations

import numpy as np

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    if p.input_dtype != "int8":
        raise ValueError(f"step {step.index}: QUANTIZE from {p.input_dtype} has no C kernel (int8 -> int8 only)")
    size = int(np.prod(p.output_shape, dtype=np.int64))
    return "vmcu_quantize_params", struct(size=size, input_zero_point=p.input_zero_point,
                                          output_zero_point=p.output_zero_point,
                                          multiplier=c_number(p.multiplier), shift=p.shift)
