"""STRIDED_SLICE of an activation, with constant begin, end and strides (TFLite Micro's Prepare
requires them constant), begin/end masks and shrink_axis_mask, up to 4-D as TFLite Micro.

Each axis is resolved as TFLite's StartForAxis/StopForAxis do: negative indices count from the
end, then the start and stop are clamped to the axis (to [-1, size - 1] for negative strides).
TFLite Micro ignores the ellipsis, new-axis and offset flags; so does this. Bytes are copied as
they are, whatever the output's quantization says, as TFLite Micro does. int16 and int32 tensors
(an audio front end's spectrum) are sliced as int8 ones: the runtime's strided copy walks whole
elements as runs of their bytes (`element_bytes`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..codegen.params.strided_copy import emit_slice
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from .spec import OpSpec

KIND = "STRIDED_SLICE"
TYPES = ("int8", "int16", "int32")  # TFLite Micro also slices float32 and bool
MAX_RANK = 4  # TFLite Micro: "input dim should not exceed 4"


@dataclass(frozen=True)
class SliceParams:
    """Per input axis: first index, step and element count; the output keeps the count order
    (axes shrunk away have a count of 1)."""

    input_shape: tuple[int, ...]
    begin: tuple[int, ...]
    steps: tuple[int, ...]
    counts: tuple[int, ...]
    output_shape: tuple[int, ...]
    element_bytes: int = 1  # 2 for int16, 4 for int32: the strided copy moves each element's bytes


def _clamp(value: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, value))


def axis_range(size: int, begin: int, end: int, stride: int, begin_masked: bool, end_masked: bool,
               shrink: bool) -> tuple[int, int]:
    """(first index, count) of one axis, as TFLite's StartForAxis, StopForAxis and output size."""
    lo, hi = (0, size) if stride > 0 else (-1, size - 1)
    start = (-(1 << 31) if stride > 0 else (1 << 31) - 1) if begin_masked else begin
    start = _clamp(start + size if start < 0 else start, lo, hi)
    if shrink:
        return start, 1
    stop = ((1 << 31) - 1 if stride > 0 else -(1 << 31)) if end_masked else end
    stop = _clamp(stop + size if stop < 0 else stop, lo, hi)
    return start, max(0, math.ceil((stop - start) / stride))


def prepare(graph: Graph, op: Op) -> SliceParams:
    require(len(op.inputs) == 4 and len(op.outputs) == 1, op, "expects an input, begin, end, strides and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in TYPES and out.dtype == input_.dtype, op,
            f"input type {input_.dtype.upper()} and output type {out.dtype.upper()}: int8, int16 or int32, "
            "the same for both")
    rank = len(input_.shape)
    require(1 <= rank <= MAX_RANK, op, f"{rank}-D input is not supported (1-D to {MAX_RANK}-D)")
    vectors = []
    for position, what in ((1, "begin"), (2, "end"), (3, "strides")):
        t = tensor(graph, op, position)
        require(t is not None and t.dtype == "int32" and t.shape == (rank,), op,
                f"{what} must be int32 of shape ({rank},)")
        vectors.append(tuple(int(v) for v in constant(graph, op, position, what)))
    begin, end, strides = vectors
    require(all(s != 0 for s in strides), op, "a stride is 0")
    o = op.options
    for a, size in enumerate(input_.shape):
        # TFLite Micro's loop runs from start to start + 1 by the stride: with a negative stride it
        # writes nothing, and the output holds whatever was in memory
        require(not (o.shrink_axis_mask >> a & 1 and strides[a] < 0), op,
                f"axis {a} is shrunk with a negative stride: TFLite Micro leaves the output unwritten")
    ranges = [axis_range(size, begin[a], end[a], strides[a], bool(o.begin_mask >> a & 1),
                         bool(o.end_mask >> a & 1), bool(o.shrink_axis_mask >> a & 1))
              for a, size in enumerate(input_.shape)]
    require(all(0 <= start < size for (start, _), size in zip(ranges, input_.shape)), op,
            f"begin {begin} starts outside the input {input_.shape}")
    kept = tuple(count for a, (_, count) in enumerate(ranges) if not o.shrink_axis_mask >> a & 1)
    require(out.shape == kept, op, f"output shape {out.shape} is not the slice's {kept}")
    return SliceParams(input_shape=input_.shape, begin=tuple(b for b, _ in ranges), steps=strides,
                       counts=tuple(c for _, c in ranges), output_shape=out.shape,
                       element_bytes=np.dtype(out.dtype).itemsize)


SPEC = OpSpec(KIND, kind_id=26, emit=emit_slice, prepare=prepare, c_kernel="vmcu_strided_copy_s8",
              arity=((4, 4), 1, frozenset()), options="StridedSliceOptions",
              activation_types=frozenset(TYPES) - {"int8"})
