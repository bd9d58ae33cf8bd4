"""REDUCE_MAX: the largest raw int8 value over constant axes. TFLite Micro requires the input
and output quantization to be equal, so no rescaling is involved."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.reduce_max import emit
from ..graph import Graph, Op
from .common import output, require, tensor
from .mean import reduced_axes
from .spec import TWO_INPUTS, OpSpec

KIND = "REDUCE_MAX"


@dataclass(frozen=True)
class ReduceMaxParams:
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    axes: tuple[int, ...]  # reduced input dimensions, non-negative, sorted, without duplicates


def prepare(graph: Graph, op: Op) -> ReduceMaxParams:
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype == "int8" and out.dtype == "int8", op, "only int8 tensors are supported")
    axes = reduced_axes(graph, op)
    for name, t in (("input", input_), ("output", out)):
        require(t.quant is not None and not t.quant.per_channel, op, f"the {name} needs a per-tensor scale")
    require(np.float32(input_.scale) == np.float32(out.scale) and input_.zero_point == out.zero_point, op,
            "the input and output quantization must be equal (as TFLite Micro requires)")
    return ReduceMaxParams(input_shape=input_.shape, output_shape=out.shape, axes=axes)


SPEC = OpSpec(KIND, kind_id=32, emit=emit, prepare=prepare, c_kernel="vmcu_reduce_max_s8", arity=TWO_INPUTS,
              options="ReducerOptions")
