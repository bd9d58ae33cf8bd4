"""The state steps' params: READ_VARIABLE, ASSIGN_VARIABLE and CALL_ONCE, with the places of their
variables (and CALL_ONCE's flag) in the state region."""
from __future__ import annotations

import numpy as np

from ...state import state_layout
from .common import struct


def emit_read(step, graph, writer, name):
    p = step.params
    return "vmcu_variable_params", struct(state_offset=f"{state_layout(graph).offsets[p.variable]}u",
                                          bytes=f"{p.bytes}u", constant="0")


def emit_assign(step, graph, writer, name):
    p = step.params
    constant = writer.array("int8_t", f"{name}_constant", p.constant) if p.constant is not None else "0"
    return "vmcu_variable_params", struct(state_offset=f"{state_layout(graph).offsets[p.variable]}u",
                                          bytes=f"{p.bytes}u", constant=constant)


def emit_call_once(step, graph, writer, name):
    p = step.params
    layout = state_layout(graph)
    offsets = sizes = data = "0"  # no value: no arrays (C has no empty ones)
    if p.values:
        offsets = writer.array("uint32_t", f"{name}_offsets", [layout.offsets[t] for t, _ in p.values])
        sizes = writer.array("uint32_t", f"{name}_sizes", [data.size for _, data in p.values])
        data = writer.array("int8_t", f"{name}_data", np.concatenate([d for _, d in p.values]))
    return "vmcu_call_once_params", struct(flag_offset=f"{layout.flags[p.op]}u", num_values=len(p.values),
                                           offsets=offsets, sizes=sizes, data=data)
