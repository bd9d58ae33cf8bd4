"""vmcu_logistic_params from LogisticParams (size from the output tensor)."""
from __future__ import annotations

from ..cwriter import c_number


def emit(step, graph, writer, name):
    p = step.params
    size = graph.tensors[step.outputs[0]].num_elements
    return "vmcu_logistic_params", (
        f"{{{size}, {p.input_zero_point}, {c_number(p.input_range_radius)}, {c_number(p.input_multiplier)}, "
        f"{p.input_left_shift}}}")
