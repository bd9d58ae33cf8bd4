"""vmcu_strided_copy_params: TRANSPOSE, and the slices (STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK), as a walk
over the output with the input stride of each output dimension and the first element's offset."""
from __future__ import annotations

from .common import int_array, row_major_strides, struct

MAX_RANK = 5  # VMCU_MAX_COPY_DIMS


def strided_copy(output_dims, input_strides, input_start: int = 0) -> str:
    return struct(rank=len(output_dims), output_dims=int_array(output_dims, MAX_RANK),
                  input_strides=int_array(input_strides, MAX_RANK), input_start=input_start)


def merged_runs(dims, strides):
    """The same walk with fewer dimensions, for int16 elements (whose innermost axis is their 2 bytes):
    dimensions of one index go, and an axis whose stride spans the whole of the axis inside it joins it,
    so that the kernel copies a whole slice of int16 rows as one run instead of one element at a time.
    The bytes are read and written in the same order (int8's tables are left as they are)."""
    kept = [(d, s) for d, s in zip(dims, strides) if d != 1] or [(1, strides[-1])]
    merged = [kept[-1]]
    for d, s in reversed(kept[:-1]):
        inner_dims, inner_stride = merged[0]
        if s == inner_dims * inner_stride:
            merged[0] = (d * inner_dims, inner_stride)
        else:
            merged.insert(0, (d, s))
    return [d for d, _ in merged], [s for _, s in merged]


def emit_transpose(step, graph, writer, name):
    """Elements of several bytes add an innermost axis over their bytes, the strides in bytes."""
    p = step.params
    size = getattr(p, "element_bytes", 1)
    in_strides = [s * size for s in row_major_strides(graph.tensors[step.inputs[0]].shape)]
    dims, strides = list(p.output_shape), [in_strides[a] for a in p.perm]
    if size > 1:
        dims, strides = dims + [size], strides + [1]
    if size == 2:
        dims, strides = merged_runs(dims, strides)
    return "vmcu_strided_copy_params", strided_copy(dims, strides)


def emit_slice(step, graph, writer, name):
    """SliceParams: per input axis, the first index, the step and the count. Elements of several
    bytes add an innermost axis over their bytes, the strides and the start counted in bytes."""
    p = step.params
    size = p.element_bytes
    in_strides = [s * size for s in row_major_strides(p.input_shape)]
    start = sum(b * s for b, s in zip(p.begin, in_strides))
    counts, strides = list(p.counts), [k * s for k, s in zip(p.steps, in_strides)]
    if size > 1:
        counts, strides = counts + [size], strides + [1]
    if size == 2:
        counts, strides = merged_runs(counts, strides)
    return "vmcu_strided_copy_params", strided_copy(counts, strides, start)
