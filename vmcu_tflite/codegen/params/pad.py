"""vmcu_pad_params from PadParams."""
from __future__ import annotations

from .common import int_array


def emit(step, graph, writer, name):
    p = step.params
    rank = max(1, len(p.output_shape))
    in_shape = tuple(p.input_shape) or (1,)
    out_shape = tuple(p.output_shape) or (1,)
    before = [b for b, _ in p.paddings] or [0]
    return "vmcu_pad_params", (
        f"{{{rank}, {int_array(in_shape)}, {int_array(out_shape)}, {int_array(before)}, {p.pad_value}}}")
