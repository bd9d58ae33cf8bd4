"""TRANSPOSE against TFLite Micro: random 1-D to 5-D shapes and permutations."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder


@st.composite
def transpose_cases(draw):
    rank = draw(st.integers(1, 5))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    perm = tuple(draw(st.permutations(range(rank))))
    return shape, perm, draw(st.integers(0, 2**31))


@settings(max_examples=60, deadline=None)
@given(transpose_cases())
def test_transpose_bit_exact(case):
    shape, perm, seed = case
    rng = np.random.default_rng(seed)
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    b = ModelBuilder()
    x = b.tensor(shape, scale=scale, zero_point=zp)
    p = b.const(np.array(perm, dtype=np.int32))
    y = b.tensor(tuple(shape[d] for d in perm), scale=scale, zero_point=zp)
    b.op("TRANSPOSE", [x, p], [y])
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=shape).astype(np.int8)
    assert_matches_tflm(b.build(), [data])
