"""vmcu_pad_params from PadParams."""
from __future__ import annotations

from .common import int_array, struct


def emit(step, graph, writer, name):
    p = step.params
    rank = max(1, len(p.output_shape))
    in_shape = tuple(p.input_shape) or (1,)
    out_shape = tuple(p.output_shape) or (1,)
    before = [b for b, _ in p.paddings] or [0]
    return "vmcu_pad_params", struct(rank=rank, input=int_array(in_shape), output=int_array(out_shape),
                                     before=int_array(before), pad_value=p.pad_value)
