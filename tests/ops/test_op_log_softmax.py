"""LOG_SOFTMAX against TFLite Micro: every int8 value in rows of random length, input scales from
tiny to large (rows that saturate and rows that do not)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2**31))
def test_log_softmax_bit_exact(rank, seed):
    rng = np.random.default_rng(seed)
    depth = int(rng.choice([1, 2, 7, 64, 256, 300]))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (depth,)
    in_scale = float(np.exp(rng.uniform(np.log(0.001), np.log(1.0))))
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_scale, zero_point=int(rng.integers(-128, 128)))
    y = b.tensor(shape, scale=16 / 256, zero_point=127)
    b.op("LOG_SOFTMAX", [x], [y])
    b.inputs, b.outputs = [x], [y]
    spread = int(rng.choice([0, 5, 60, 128]))
    data = np.clip(rng.integers(-spread, spread + 1, size=shape) + int(rng.integers(-100, 100)), -128, 127)
    assert_matches_or_refused_like_tflm(b.build(), [data.astype(np.int8)])
