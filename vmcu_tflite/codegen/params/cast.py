"""vmcu_cast_params from CastParams: the element count and both element types (vmcu_type)."""
from __future__ import annotations

from ..model_c_types import TYPE_IDS
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_cast_params", struct(count=p.count, input_type=TYPE_IDS[p.input_type],
                                      output_type=TYPE_IDS[p.output_type])
