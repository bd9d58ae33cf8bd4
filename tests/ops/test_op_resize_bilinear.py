"""RESIZE_BILINEAR against TFLite Micro: random sizes up and down, align_corners and
half_pixel_centers, batches and channels."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(False, False), (True, False), (False, True)]), st.integers(0, 2**31))
def test_resize_bilinear_bit_exact(corners_half_pixel, seed):
    align_corners, half_pixel_centers = corners_half_pixel
    rng = np.random.default_rng(seed)
    n, h, w, c = (int(v) for v in (rng.integers(1, 3), rng.integers(1, 9), rng.integers(1, 9), rng.integers(1, 6)))
    out_h, out_w = (int(v) for v in rng.integers(1, 17, size=2))
    b = ModelBuilder()
    scale, zp = float(rng.uniform(0.01, 0.2)), int(rng.integers(-128, 128))
    x = b.tensor((n, h, w, c), scale=scale, zero_point=zp)
    y = b.tensor((n, out_h, out_w, c), scale=scale, zero_point=zp)
    b.op("RESIZE_BILINEAR", [x, b.const(np.array([out_h, out_w], dtype=np.int32))], [y],
         align_corners=align_corners, half_pixel_centers=half_pixel_centers)
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=(n, h, w, c)).astype(np.int8)
    assert_matches_or_refused_like_tflm(b.build(), [data])
