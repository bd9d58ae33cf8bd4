"""vmcu_log_softmax_params from LogSoftmaxParams (rows and depth from the output tensor)."""
from __future__ import annotations

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    out = graph.tensors[step.outputs[0]]
    depth = int(out.shape[-1])
    return "vmcu_log_softmax_params", struct(
        rows=out.num_elements // depth, depth=depth, input_multiplier=c_number(p.input_multiplier),
        input_left_shift=p.input_left_shift, reverse_scaling_divisor=c_number(p.reverse_scaling_divisor),
        reverse_scaling_shift=p.reverse_scaling_shift, diff_min=c_number(p.diff_min))
