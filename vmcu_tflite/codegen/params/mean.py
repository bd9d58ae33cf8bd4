"""vmcu_mean_params from MeanParams.

Dimensions of size 1 are dropped and neighbouring dimensions that are both reduced or both kept
are merged: a global average pool over [1, H, W, C] becomes {H*W reduced, C kept}.
"""
from __future__ import annotations

from ..cwriter import c_number
from .common import MAX_DIMS, int_array, struct


def merged_axes(shape, axes) -> tuple[list[int], list[bool]]:
    walk: list[int] = []
    reduce: list[bool] = []
    for axis, size in enumerate(shape):
        flag = axis in axes
        if size == 1:
            continue
        if walk and reduce[-1] == flag:
            walk[-1] *= int(size)
        else:
            walk.append(int(size))
            reduce.append(flag)
    if not walk:
        walk, reduce = [1], [False]
    if len(walk) > MAX_DIMS:
        raise ValueError(f"MEAN over {len(walk)} alternating dimensions (the runtime walks {MAX_DIMS})")
    return walk, reduce


def emit(step, graph, writer, name):
    p = step.params
    walk, reduce = merged_axes(p.input_shape, p.axes)
    return "vmcu_mean_params", struct(
        rank=len(walk), dims=int_array(walk), reduce=int_array([int(r) for r in reduce]), count=p.count,
        input_zero_point=p.input_zero_point, output_zero_point=p.output_zero_point,
        multiplier=c_number(p.multiplier), shift=p.shift)
