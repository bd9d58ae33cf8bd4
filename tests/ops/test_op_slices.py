"""STRIDED_SLICE, SPLIT and SPLIT_V of activations against TFLite Micro: random shapes, begin/end/
strides (negative ones and out-of-range indices included), masks, axes and part sizes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops.strided_slice import axis_range
from vmcu_tflite.pipeline import compile_model


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**31), st.sampled_from(["int8", "int8", "int16", "int32"]))
def test_strided_slice_bit_exact(rank, seed, dtype):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 7, size=rank))
    begin = [int(rng.integers(-d - 2, d + 2)) for d in shape]
    end = [int(rng.integers(-d - 2, d + 2)) for d in shape]
    strides = [int(rng.choice([-3, -2, -1, 1, 1, 1, 2, 3])) for _ in shape]
    masks = {name: int(rng.integers(0, 1 << rank)) for name in ("begin_mask", "end_mask")}
    masks["shrink_axis_mask"] = int(rng.integers(0, 1 << rank)) if rng.random() < 0.3 else 0
    ranges = [axis_range(d, b, e, s, bool(masks["begin_mask"] >> a & 1), bool(masks["end_mask"] >> a & 1),
                         bool(masks["shrink_axis_mask"] >> a & 1))
              for a, (d, b, e, s) in enumerate(zip(shape, begin, end, strides))]
    for a, (start, count) in enumerate(ranges):  # non-empty slices, shrunk axes inside, walked forwards
        if count == 0 or not 0 <= start < shape[a] or (masks["shrink_axis_mask"] >> a & 1 and strides[a] < 0):
            begin[a], end[a], strides[a] = 0, shape[a], 1
            masks = {k: v & ~(1 << a) for k, v in masks.items()}
    ranges = [axis_range(d, b, e, s, bool(masks["begin_mask"] >> a & 1), bool(masks["end_mask"] >> a & 1),
                         bool(masks["shrink_axis_mask"] >> a & 1))
              for a, (d, b, e, s) in enumerate(zip(shape, begin, end, strides))]
    out_shape = tuple(c for a, (_, c) in enumerate(ranges) if not masks["shrink_axis_mask"] >> a & 1)
    b = ModelBuilder()
    scale, zp = float(rng.uniform(0.01, 0.2)), int(rng.integers(-128, 128))
    quant = dict(scale=scale, zero_point=zp) if dtype == "int8" else {}  # int16/int32: integers, unquantized
    x = b.tensor(shape, dtype, **quant)
    y = b.tensor(out_shape, dtype, **quant)
    vectors = [b.const(np.array(v, dtype=np.int32)) for v in (begin, end, strides)]
    b.op("STRIDED_SLICE", [x, *vectors], [y], **masks)
    b.inputs, b.outputs = [x], [y]
    info = np.iinfo(dtype)
    assert_matches_or_refused_like_tflm(b.build(), [rng.integers(info.min, info.max, size=shape, endpoint=True)
                                                    .astype(dtype)])


@settings(max_examples=60, deadline=None)
@given(st.booleans(), st.integers(1, 4), st.integers(0, 2**31))
def test_split_bit_exact(sizes_given, rank, seed):
    rng = np.random.default_rng(seed)
    shape = [int(d) for d in rng.integers(1, 6, size=rank)]
    axis = int(rng.integers(-rank, rank))
    parts = int(rng.integers(1, 4))
    if sizes_given:
        sizes = [int(s) for s in rng.integers(1, 4, size=parts)]
        shape[axis] = sum(sizes)
    else:
        shape[axis] *= parts
        sizes = [shape[axis] // parts] * parts
    b = ModelBuilder()
    scale, zp = float(rng.uniform(0.01, 0.2)), int(rng.integers(-128, 128))
    x = b.tensor(shape, scale=scale, zero_point=zp)
    outs = []
    for size in sizes:
        part = list(shape)
        part[axis] = size
        outs.append(b.tensor(part, scale=scale, zero_point=zp))
    axis_tensor = b.const(np.array([axis], dtype=np.int32))
    if sizes_given:
        given_sizes = list(sizes)
        if parts > 1 and rng.random() < 0.5:
            given_sizes[int(rng.integers(0, parts))] = -1  # TFLite infers one size
        b.op("SPLIT_V", [x, b.const(np.array(given_sizes, dtype=np.int32)), axis_tensor], outs, num_splits=parts)
    else:
        b.op("SPLIT", [axis_tensor, x], outs, num_splits=parts)
    b.inputs, b.outputs = [x], outs
    assert_matches_or_refused_like_tflm(b.build(), [rng.integers(-128, 128, size=shape).astype(np.int8)])


def test_shrinking_with_a_negative_stride_is_refused():
    """TFLite Micro writes nothing then (its loop ends before the first element): no output to match."""
    b = ModelBuilder()
    x = b.tensor((3, 4), scale=0.1, zero_point=0)
    y = b.tensor((4,), scale=0.1, zero_point=0)
    vectors = [b.const(np.array(v, dtype=np.int32)) for v in ((1, 0), (2, 4), (-1, 1))]
    b.op("STRIDED_SLICE", [x, *vectors], [y], shrink_axis_mask=1)
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match="shrunk with a negative stride"):
        compile_model(b.build())
