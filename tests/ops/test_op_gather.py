"""GATHER of an activation against TFLite Micro: random shapes, axes (negative too) and constant
index tensors of any rank, repeated and reordered indices."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2), st.sampled_from(["int32", "int64"]), st.integers(0, 2**31))
def test_gather_bit_exact(rank, index_rank, index_type, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
    axis = int(rng.integers(-rank, rank))
    index_shape = tuple(int(d) for d in rng.integers(1, 4, size=index_rank))
    indices = rng.integers(0, shape[axis], size=index_shape).astype(index_type)
    a = axis % rank
    out_shape = shape[:a] + index_shape + shape[a + 1:]
    b = ModelBuilder()
    scale, zp = float(rng.uniform(0.01, 0.2)), int(rng.integers(-128, 128))
    x = b.tensor(shape, scale=scale, zero_point=zp)
    y = b.tensor(out_shape, scale=scale, zero_point=zp)
    b.op("GATHER", [x, b.const(indices)], [y], axis=axis)
    b.inputs, b.outputs = [x], [y]
    assert_matches_or_refused_like_tflm(b.build(), [rng.integers(-128, 128, size=shape).astype(np.int8)])
