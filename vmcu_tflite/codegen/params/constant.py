"""vmcu_constant_params from ConstantParams: the output's bytes, in flash."""
from __future__ import annotations

from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    data = writer.array("int8_t", f"{name}_data", p.data)
    return "vmcu_constant_params", struct(bytes=p.data.size, data=data)
