"""LOGISTIC int8 against TFLite Micro: every int8 input value under random input quantization."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**31))
def test_logistic_bit_exact(rank, seed):
    rng = np.random.default_rng(seed)
    # input scales from 1/2000 to 2: from inputs that never saturate to inputs that all do
    in_scale = float(np.exp(rng.uniform(np.log(0.0005), np.log(2.0))))
    in_zp = int(rng.integers(-128, 128))
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rank - 1)) + (256,)
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_scale, zero_point=in_zp)
    y = b.tensor(shape, scale=1 / 256, zero_point=-128)
    b.op("LOGISTIC", [x], [y])
    b.inputs, b.outputs = [x], [y]
    data = np.broadcast_to(np.arange(-128, 128), shape)  # all 256 values in every row
    data = rng.permuted(data, axis=-1).astype(np.int8)
    assert_matches_tflm(b.build(), [data])
