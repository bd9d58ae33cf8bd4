"""vmcu_softmax_s16_params from Int16SoftmaxParams: the rows, the input scaling and the two 513-entry
int16 tables (exp and 1/(1+x)) in flash."""
from __future__ import annotations

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    exp_table = writer.array("int16_t", f"{name}_exp", p.exp_table)
    reciprocal = writer.array("int16_t", f"{name}_reciprocal", p.reciprocal_table)
    return "vmcu_softmax_s16_params", struct(outer=p.outer, depth=p.depth,
                                             input_multiplier=c_number(p.input_multiplier),
                                             input_shift=p.input_shift, exp_table=exp_table,
                                             reciprocal_table=reciprocal)
