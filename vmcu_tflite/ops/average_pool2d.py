"""AVERAGE_POOL_2D: int8 mean over each window's in-bounds taps, rounded half away from zero.

Also holds the geometry shared with MAX_POOL_2D (`PoolParams`, `prepare_pool`). int16 pools (a 16x8
model's: TFLite Micro's int16 AveragePool and MaxPool, the same arithmetic over int16 values) are
steps of their own kinds (`average_pool2d_s16`, `max_pool2d_s16`), streamed as their kernels walk
(`pool16_access`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.average_pool2d import emit
from ..graph import Graph, Op
from ..planner.access import AccessPattern, windowed
from .common import fused_activation, output, require, tensor
from .conv2d import conv_geometry
from .int16_base import activation_range_16
from .spec import ONE_INPUT, OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "AVERAGE_POOL_2D"


@dataclass(frozen=True)
class PoolParams:
    input_shape: tuple[int, int, int, int]
    output_shape: tuple[int, int, int, int]
    filter: tuple[int, int]  # (h, w)
    stride: tuple[int, int]  # (h, w)
    padding: tuple[int, int]  # implicit positions before the first input (row, column)
    act_min: int
    act_max: int
    pad_value: int | None = None  # a folded PAD's value: taps outside the input hold it and count


@dataclass(frozen=True)
class Pool16Params(PoolParams):
    """An int16 pool: the int8 geometry, the clamp in int16, and its step kind."""

    step_kind: str = ""


# Taps of an int16 average's window at most: its int32 sum of |tap| <= 32768 stays in int32
POOL16_MAX_TAPS = (1 << 16) - 1


def prepare_pool(graph: Graph, op: Op) -> PoolParams:
    input_, out = tensor(graph, op, 0), output(graph, op)
    o = op.options
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects 1 input and 1 output")
    require(input_.dtype in ("int8", "int16") and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    require(all(t.quant is not None and not t.quant.per_channel for t in (input_, out)), op,
            "the input and the output need a per-tensor scale")
    require(len(input_.shape) == 4 and len(out.shape) == 4, op, "expects a 4-D input and a 4-D output")
    require(out.shape[0] == input_.shape[0] and out.shape[3] == input_.shape[3], op,
            f"output shape {out.shape} does not keep the batch and channels of input {input_.shape}")
    kernel = (o.filter_height, o.filter_width)
    require(min(kernel) >= 1 and o.stride_h >= 1 and o.stride_w >= 1, op,
            f"invalid filter {kernel} or stride")
    # As TFLite Micro's PoolingPrepare: the scale difference is taken in float32.
    require(abs(float(np.float32(input_.scale) - np.float32(out.scale))) <= 1e-6
            and input_.zero_point == out.zero_point, op, "input and output quantization must be equal")
    stride, padding = conv_geometry(graph, op, kernel, (1, 1))
    folded = "folded_padding" in o  # the passes fold a PAD only into a VALID pool: every outside tap is the PAD's
    if input_.dtype == "int16":
        require(kernel[0] * kernel[1] <= POOL16_MAX_TAPS, op,
                f"a {kernel[0]}x{kernel[1]} int16 window is not supported (at most {POOL16_MAX_TAPS} taps)")
        act_min, act_max = activation_range_16(op, out)
        return Pool16Params(input_shape=input_.shape, output_shape=out.shape, filter=kernel, stride=stride,
                            padding=padding, act_min=act_min, act_max=act_max,
                            pad_value=input_.zero_point if folded else None, step_kind=f"{op.kind}_S16")
    act_min, act_max = fused_activation(op, out)
    return PoolParams(input_shape=input_.shape, output_shape=out.shape, filter=kernel, stride=stride,
                      padding=padding, act_min=act_min, act_max=act_max,
                      pad_value=input_.zero_point if folded else None)


def prepare(graph: Graph, op: Op) -> PoolParams:
    return prepare_pool(graph, op)


def pool_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """Pools stream like a depthwise window over channel segments (both pool kinds)."""
    p = step.params
    return windowed(p.input_shape, p.output_shape, p.filter, p.stride, (1, 1), p.padding, segment, channel_reads=True)


def pool16_access(channels: int):
    """The int16 pools' walk: pixel by pixel, `channels` channels at a time (whatever the planner's
    segment), each block's taps read before its outputs are written; `windowed` over int16 elements."""
    def access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
        p = step.params
        return windowed(p.input_shape, p.output_shape, p.filter, p.stride, (1, 1), p.padding, 2 * channels,
                        channel_reads=True, element=2)
    return access


SPEC = OpSpec(KIND, kind_id=5, emit=emit, prepare=prepare, c_kernel="vmcu_avg_pool2d_s8", access=pool_access,
              arity=ONE_INPUT, options="Pool2DOptions", options_required=True, activation_types=frozenset({"int16"}))
