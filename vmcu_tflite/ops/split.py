"""SPLIT: equal parts of an activation along a constant axis. The passes give each output its own
op (`vmcu_tflite.passes.one_output_per_split`, which records the part's first index along the
axis as `split_begin`), and each part is a slice (`strided_slice.SliceParams`)."""
from __future__ import annotations

import numpy as np

from ..codegen.params.strided_copy import MAX_RANK, emit_slice
from ..graph import Graph, Op, Tensor
from .common import constant, output, require, tensor
from .spec import OpSpec
from .strided_slice import SliceParams

KIND = "SPLIT"
TYPES = ("int8", "int16")  # int16: a 16x8 model's, each element a run of its 2 bytes


def split_axis(graph: Graph, op: Op, position: int, input_: Tensor) -> int:
    """The constant axis input at `position`, made non-negative and checked against the input's rank."""
    t = tensor(graph, op, position)
    require(t is not None and t.dtype == "int32" and t.num_elements == 1, op, "the axis must be one int32 value")
    axis = int(constant(graph, op, position, "the axis").reshape(-1)[0])
    rank = len(input_.shape)
    require(-rank <= axis < rank, op, f"axis {axis} is out of range for a {rank}-D input")
    return axis % rank


def part_of(graph: Graph, op: Op, data_position: int, axis_position: int) -> SliceParams:
    """One output of a SPLIT or SPLIT_V: the input's bytes from `split_begin` along the axis."""
    input_, out = tensor(graph, op, data_position), output(graph, op)
    require(input_.dtype in TYPES and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    size = np.dtype(input_.dtype).itemsize
    require(size == 1 or len(input_.shape) <= MAX_RANK - 1, op,
            f"a {len(input_.shape)}-D {input_.dtype} input is not supported (up to {MAX_RANK - 1}-D)")
    axis = split_axis(graph, op, axis_position, input_)
    require(len(op.outputs) == 1 and "split_begin" in op.options, op, "has not been split into parts")
    begin = int(op.options.split_begin)
    require(len(out.shape) == len(input_.shape) and all(
        o == i for a, (o, i) in enumerate(zip(out.shape, input_.shape)) if a != axis), op,
        f"output shape {out.shape} does not match input shape {input_.shape} outside axis {axis}")
    require(begin + out.shape[axis] <= input_.shape[axis], op, "the parts are larger than the input")
    starts = tuple(begin if a == axis else 0 for a in range(len(input_.shape)))
    return SliceParams(input_shape=input_.shape, begin=starts, steps=(1,) * len(starts), counts=out.shape,
                       output_shape=out.shape, element_bytes=size)


def prepare(graph: Graph, op: Op) -> SliceParams:
    params = part_of(graph, op, data_position=1, axis_position=0)
    axis = split_axis(graph, op, 0, tensor(graph, op, 1))
    parts = op.options.num_splits
    require(parts >= 1 and params.input_shape[axis] == parts * params.output_shape[axis], op,
            f"{parts} equal parts of {params.input_shape[axis]} along axis {axis} "
            f"are not {params.output_shape[axis]} long")
    return params


SPEC = OpSpec(KIND, kind_id=27, emit=emit_slice, prepare=prepare, c_kernel="vmcu_strided_copy_s8",
              arity=((2, 2), None, frozenset()), options="SplitOptions", activation_types=frozenset({"int16"}))
