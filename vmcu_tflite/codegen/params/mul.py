"""vmcu_elementwise_params from MulParams (the ADD-only fields are 0)."""
from __future__ import annotations

from ..cwriter import c_number
from .add import broadcast
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    arith = struct(input1_offset=p.input1_offset, input2_offset=p.input2_offset, output_offset=p.output_offset,
                   output_multiplier=c_number(p.output_multiplier), output_shift=p.output_shift,
                   act_min=p.act_min, act_max=p.act_max)
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, p), arith=arith)
