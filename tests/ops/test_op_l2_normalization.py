"""L2_NORMALIZATION against TFLite Micro: rows of every length up to 300 (sums of squares from 0
to past 2**29), any input zero point, 1-D to 4-D."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**31))
def test_l2_normalization_bit_exact(rank, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (int(rng.integers(1, 300)),)
    zp = int(rng.integers(-128, 128))
    b = ModelBuilder()
    x = b.tensor(shape, scale=float(rng.uniform(0.01, 0.2)), zero_point=zp)
    y = b.tensor(shape, scale=1 / 128, zero_point=0)
    b.op("L2_NORMALIZATION", [x], [y])
    b.inputs, b.outputs = [x], [y]
    spread = int(rng.choice([0, 1, 3, 40, 255]))  # all at the zero point, tiny rows, up to huge sums
    data = np.clip(zp + rng.integers(-spread, spread + 1, size=shape), -128, 127).astype(np.int8)
    assert_matches_or_refused_like_tflm(b.build(), [data])
