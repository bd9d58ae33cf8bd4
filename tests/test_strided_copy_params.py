"""The int16 strided copy's merged runs walk the same bytes in the same order as the walk they replace
(vmcu_strided_copy_s8 copies in output order: the order of the byte offsets is what it reads)."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from vmcu_tflite.codegen.params.strided_copy import merged_runs


def offsets(dims, strides, start=0):
    """The input byte offsets of the output bytes, in output order (the C kernel's odometer)."""
    return [start + sum(i * s for i, s in zip(index, strides)) for index in itertools.product(*map(range, dims))]


@st.composite
def walks(draw):
    """An int16 slice's walk: a few axes over a row-major input, each sliced with a step (possibly
    negative), and the innermost axis over the element's 2 bytes."""
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    row_major = [2 * int(x) for x in itertools.accumulate(reversed(shape[1:] + [1]), lambda a, b: a * b)][::-1]
    counts = [draw(st.integers(1, n)) for n in shape]
    steps = [draw(st.sampled_from([1, 1, 2, -1])) for _ in shape]
    return counts + [2], [k * s for k, s in zip(steps, row_major)] + [1]


@settings(max_examples=300, deadline=None)
@given(walks())
def test_merged_runs_read_the_same_bytes_in_the_same_order(walk):
    dims, strides = walk
    merged_dims, merged_strides = merged_runs(dims, strides)
    assert offsets(merged_dims, merged_strides) == offsets(dims, strides)
    assert len(merged_dims) <= len(dims)


def test_a_slice_of_whole_rows_is_one_run():
    # SPLIT of a [1, 24] int16 tensor in three: 8 elements, 16 contiguous bytes
    assert merged_runs([1, 8, 2], [48, 2, 1]) == ([16], [1])
    # UNPACK of one time step of a [1, 5, 10] int16 sequence
    assert merged_runs([1, 1, 10, 2], [100, 20, 2, 1]) == ([20], [1])
    # a column slice stays two axes: rows apart in the input
    assert merged_runs([3, 2, 2], [8, 2, 1]) == ([3, 4], [8, 1])
