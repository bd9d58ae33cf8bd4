"""Steps: the kernel invocations a plan schedules, in execution order.

A step is one kernel call with its prepared params. Its `inputs` are the activation tensors it
reads (constants live in flash, inside the params) and `ops` the TFLite operators it implements,
the folded ones included.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import ops as op_registry
from .ops import constant
from .errors import ModelError
from .graph import Graph


@dataclass(frozen=True, eq=False)
class Step:
    index: int
    kernel: str
    ops: tuple[int, ...]
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    params: Any
    macs: int


def build_steps(graph: Graph) -> tuple[Step, ...]:
    """One step per remaining op, params prepared once (TFLite Micro's Prepare, done ahead of time)."""
    steps = []
    for position, op in enumerate(graph.ops):
        if op.kind == constant.KIND:  # a folded output: it reads nothing but its flash table
            steps.append(Step(index=position, kernel=op.kind, ops=tuple(sorted(i for i in (op.index,) + op.folded
                                                                                if i >= 0)),
                              inputs=(), outputs=op.outputs, params=constant.prepare(graph, op), macs=0))
            continue
        if not graph.activations(op) and not _state_only(op):
            raise ModelError(f"operator {op.kind} at index {op.index} reads only constants, and folding {op.kind} "
                             "of these constants is not supported")
        params = op_registry.prepare(graph, op)
        # a prepare may hand the op to another step kind (an int32 ADD is an INT32_BINARY step)
        kind, params = _as_convolution(getattr(params, "step_kind", op.kind), params)
        steps.append(Step(index=position, kernel=kind, ops=tuple(sorted((op.index,) + op.folded)),
                          inputs=graph.activations(op), outputs=op.outputs, params=params,
                          macs=op_registry.macs(kind, params)))
    return tuple(steps)


def _state_only(op) -> bool:
    """A step that moves bytes between the state region and the pool (READ_VARIABLE reads no
    activation, CALL_ONCE none at all, ASSIGN_VARIABLE may assign a constant)."""
    return op.kind in ("READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE")


def _as_convolution(kind: str, params):
    """A DEPTHWISE_CONV_2D over one input channel (a grayscale stem: depth multiplier = output channels)
    is a CONV_2D with one input channel: output channel c sums (x + offset) * w[ky, kx, c] over the
    same window either way, with the same per-channel requantization. As a convolution it gathers
    the window once per pixel and runs every channel as one dot product, instead of one channel at a
    time: the same integers, a faster kernel."""
    if kind != "DEPTHWISE_CONV_2D" or params.input_shape[3] != 1:
        return kind, params
    from .ops.conv2d import Conv2DParams

    return "CONV_2D", Conv2DParams(
        input_shape=params.input_shape, output_shape=params.output_shape,
        filter=np.ascontiguousarray(params.filter.transpose(3, 1, 2, 0)), bias=params.bias, stride=params.stride,
        dilation=params.dilation, padding=params.padding, input_offset=params.input_offset,
        output_offset=params.output_offset, requant=params.requant, element=getattr(params, "element", 1),
        wide=getattr(params, "wide", False))  # a 16x8 layer stays one (the same int64 or int32 sums)
