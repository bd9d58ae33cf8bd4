"""RESIZE_NEAREST_NEIGHBOR against TFLite Micro: random sizes up and down, all option combinations."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2), st.integers(1, 12), st.integers(1, 12), st.integers(1, 4),
       st.integers(1, 25), st.integers(1, 25), st.booleans(), st.booleans(), st.integers(0, 2**31))
def test_resize_nearest_neighbor_bit_exact(n, in_h, in_w, c, out_h, out_w, align_corners, half_pixel, seed):
    rng = np.random.default_rng(seed)
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    b = ModelBuilder()
    x = b.tensor((n, in_h, in_w, c), scale=scale, zero_point=zp)
    size = b.const(np.array([out_h, out_w], dtype=np.int32))
    y = b.tensor((n, out_h, out_w, c), scale=scale, zero_point=zp)
    b.op("RESIZE_NEAREST_NEIGHBOR", [x, size], [y], align_corners=align_corners, half_pixel_centers=half_pixel)
    b.inputs, b.outputs = [x], [y]
    # distinct values per position so a wrong source row or column always shows
    data = rng.permutation(np.arange(n * in_h * in_w * c) % 256 - 128).reshape(n, in_h, in_w, c).astype(np.int8)
    assert_matches_tflm(b.build(), [data])


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 3), st.integers(1, 17), st.integers(1, 17),
       st.booleans(), st.booleans(), st.integers(0, 2**31))
def test_resize_nearest_neighbor_int16_bit_exact(in_h, in_w, c, out_h, out_w, align_corners, half_pixel, seed):
    """A 16x8 model's upsampling: each int16 value moved whole (its two bytes together)."""
    rng = np.random.default_rng(seed)
    scale = float(rng.uniform(1e-4, 1e-2))
    b = ModelBuilder()
    x = b.tensor((1, in_h, in_w, c), dtype="int16", scale=scale, zero_point=0)
    size = b.const(np.array([out_h, out_w], dtype=np.int32))
    y = b.tensor((1, out_h, out_w, c), dtype="int16", scale=scale, zero_point=0)
    b.op("RESIZE_NEAREST_NEIGHBOR", [x, size], [y], align_corners=align_corners, half_pixel_centers=half_pixel)
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-32768, 32768, (1, in_h, in_w, c)).astype(np.int16)
    assert_matches_tflm(b.build(), [data])
