"""vmcu_softmax_params from SoftmaxParams (rows and depth from the output tensor)."""
from __future__ import annotations

from ..cwriter import c_number


def emit(step, graph, writer, name):
    p = step.params
    out = graph.tensors[step.outputs[0]]
    depth = int(out.shape[-1])
    return "vmcu_softmax_params", (
        f"{{{out.num_elements // depth}, {depth}, {c_number(p.input_multiplier)}, {p.input_left_shift}, "
        f"{c_number(p.diff_min)}}}")
