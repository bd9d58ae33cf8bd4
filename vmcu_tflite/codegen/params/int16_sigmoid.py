"""vmcu_sigmoid_s16_params from Int16SigmoidParams: the operation, the input scaling and the sigmoid
table (256 uint16 values in flash)."""
from __future__ import annotations

from .common import struct


def emit(step, graph, writer, name):
    from ...ops.int16_sigmoid import OPERATIONS

    p = step.params
    table = writer.array("uint16_t", f"{name}_sigmoid", p.table)
    return "vmcu_sigmoid_s16_params", struct(operation=OPERATIONS.index(p.operation), size=p.size,
                                             input_multiplier=p.input_multiplier,
                                             input_left_shift=p.input_left_shift, table=table)
