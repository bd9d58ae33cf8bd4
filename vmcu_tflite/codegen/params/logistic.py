"""vmcu_logistic_params from LogisticParams (size from the output tensor)."""
from __future__ import annotations

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    size = graph.tensors[step.outputs[0]].num_elements
    return "vmcu_logistic_params", struct(
        size=size, input_zero_point=p.input_zero_point, input_range_radius=c_number(p.input_range_radius),
        input_multiplier=c_number(p.input_multiplier), input_left_shift=p.input_left_shift)
