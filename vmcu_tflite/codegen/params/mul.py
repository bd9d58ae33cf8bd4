"""vmcu_elementwise_params from MulParams (the ADD-only fields are 0)."""
from __future__ import annotations

from ..cwriter import c_number
from .add import broadcast


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_elementwise_params", (
        f"{{{broadcast(step, graph, writer, name, p)}, {{{p.input1_offset}, {p.input2_offset}, {p.output_offset}, "
        f"0, 0, 0, 0, 0, {c_number(p.output_multiplier)}, {p.output_shift}, {p.act_min}, {p.act_max}}}}}")
