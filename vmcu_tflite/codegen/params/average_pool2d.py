"""vmcu_pool_params from PoolParams (AVERAGE_POOL_2D; MAX_POOL_2D uses the same)."""
from __future__ import annotations

from .common import dims, struct


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_pool_params", struct(
        input=dims(p.input_shape), output=dims(p.output_shape), filter_h=p.filter[0], filter_w=p.filter[1],
        stride_h=p.stride[0], stride_w=p.stride[1], pad_h=p.padding[0], pad_w=p.padding[1],
        act_min=p.act_min, act_max=p.act_max, padded=int(p.pad_value is not None), pad_value=p.pad_value or 0)
