"""GATHER of an activation with constant indices along one axis (channel shuffles, YOLO heads):
for each index of the dimensions before the axis, the selected rows of everything after it.

TFLite Micro checks the indices only in debug builds (a release build reads past the input),
so indices outside the axis are refused here, as is batch_dims (not used by int8 exports).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.gather import emit
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "GATHER"


@dataclass(frozen=True, eq=False)
class GatherParams:
    input_shape: tuple[int, ...]
    axis: int
    indices: np.ndarray  # flat, int32
    output_shape: tuple[int, ...]


def prepare(graph: Graph, op: Op) -> GatherParams:
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects an input, indices and one output")
    input_, indices_tensor, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(input_.dtype == "int8" and out.dtype == "int8", op, "only int8 data is supported")
    require(indices_tensor is not None and indices_tensor.dtype == "int32", op,
            "indices must be int32 (TFLite Micro gathers no other)")
    require(op.options.batch_dims == 0, op, f"batch_dims {op.options.batch_dims} is not supported")
    rank = len(input_.shape)
    axis = int(op.options.axis)
    require(-rank <= axis < rank, op, f"axis {axis} is out of range for a {rank}-D input")
    axis %= rank
    indices = np.asarray(constant(graph, op, 1, "the indices"))
    size = input_.shape[axis]
    require(indices.size > 0 and bool(((indices >= 0) & (indices < size)).all()), op,
            f"indices outside 0..{size - 1} (TFLite Micro would read past the input)")
    expected = input_.shape[:axis] + indices.shape + input_.shape[axis + 1:]
    require(out.shape == expected, op, f"output shape {out.shape} is not the gathered {expected}")
    flat = indices.reshape(-1).astype(np.int32)
    flat.flags.writeable = False
    return GatherParams(input_shape=input_.shape, axis=axis, indices=flat, output_shape=out.shape)


SPEC = OpSpec(KIND, kind_id=30, emit=emit, prepare=prepare, c_kernel="vmcu_gather_s8", arity=TWO_INPUTS,
              options="GatherOptions")
