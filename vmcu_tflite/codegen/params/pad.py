"""vmcu_pad_params from PadParams."""
from __future__ import annotations

import numpy as np

from .common import int_array, struct


def emit(step, graph, writer, name):
    """Elements of several bytes (int16) are padded as bytes: the innermost axis and its padding
    counted in bytes, the pad value one of the element's (equal) bytes."""
    p = step.params
    size = getattr(p, "element_bytes", 1)
    rank = max(1, len(p.output_shape))
    in_shape = list(p.input_shape) or [1]
    out_shape = list(p.output_shape) or [1]
    before = [b for b, _ in p.paddings] or [0]
    pad_value = p.pad_value
    if size > 1:
        in_shape[-1], out_shape[-1], before[-1] = in_shape[-1] * size, out_shape[-1] * size, before[-1] * size
        pad_value = int(np.int8(np.uint8(pad_value & 0xFF)))
    return "vmcu_pad_params", struct(rank=rank, input=int_array(tuple(in_shape)), output=int_array(tuple(out_shape)),
                                     before=int_array(before), pad_value=pad_value)


def emit_s16(step, graph, writer, name):
    """PAD_S16: shapes and paddings in elements, the int16 pad value."""
    p = step.params
    before = [b for b, _ in p.paddings] or [0]
    return "vmcu_pad_params", struct(rank=max(1, len(p.output_shape)), input=int_array(tuple(p.input_shape) or (1,)),
                                     output=int_array(tuple(p.output_shape) or (1,)), before=int_array(before),
                                     pad_value=p.pad_value)
