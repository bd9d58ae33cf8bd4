"""vmcu_unary_s16_params from Int16UnaryParams: the operation, the offsets, both rescales and the clamp."""
from __future__ import annotations

from ..cwriter import c_number
from .common import struct


def emit(step, graph, writer, name):
    from ...ops.int16_unary import OPERATIONS

    p = step.params
    return "vmcu_unary_s16_params", struct(
        operation=OPERATIONS.index(p.operation), size=p.size, input_offset=p.input_offset,
        output_offset=p.output_offset, identity_multiplier=c_number(p.identity_multiplier),
        identity_shift=p.identity_shift, alpha_multiplier=c_number(p.alpha_multiplier), alpha_shift=p.alpha_shift,
        act_min=p.act_min, act_max=p.act_max)
