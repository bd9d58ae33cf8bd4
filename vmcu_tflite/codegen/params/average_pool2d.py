"""vmcu_pool_params from PoolParams (AVERAGE_POOL_2D; MAX_POOL_2D uses the same)."""
from __future__ import annotations

from .common import dims


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_pool_params", (
        f"{{{dims(p.input_shape)}, {dims(p.output_shape)}, {p.filter[0]}, {p.filter[1]}, {p.stride[0]}, "
        f"{p.stride[1]}, {p.padding[0]}, {p.padding[1]}, {p.act_min}, {p.act_max}}}")
