"""vmcu_reduce_params from ReduceMaxParams: MEAN's merged walk (reduced and kept dimensions)."""
from __future__ import annotations

from .common import int_array, struct
from .mean import merged_axes


def emit(step, graph, writer, name):
    p = step.params
    walk, reduce = merged_axes(p.input_shape, p.axes)
    return "vmcu_reduce_params", struct(rank=len(walk), dims=int_array(walk),
                                        reduce=int_array([int(r) for r in reduce]))
