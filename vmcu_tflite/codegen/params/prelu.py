"""vmcu_elementwise_params from PreluParams: the broadcast walk, and in the arithmetic the input
and alpha offsets, the identity multiplier as input 1's and the alpha one as the output's."""
from __future__ import annotations

from ..cwriter import c_number
from .add import broadcast
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    arith = struct(input1_offset=p.input_offset, input2_offset=p.alpha_offset, output_offset=p.output_offset,
                   input1_multiplier=c_number(p.identity_multiplier), input1_shift=p.identity_shift,
                   output_multiplier=c_number(p.alpha_multiplier), output_shift=p.alpha_shift,
                   act_min=-128, act_max=127)
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, p), arith=arith)
