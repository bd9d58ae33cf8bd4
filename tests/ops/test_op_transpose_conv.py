"""TRANSPOSE_CONV against TFLite Micro: random sizes, strides 1 to 3, SAME and VALID, per-channel
and per-tensor filters, with and without bias, fused activations."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.ops.common import PADDING_SAME


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 1), st.booleans(), st.booleans(), st.integers(0, 3), st.integers(0, 2**31))
def test_transpose_conv_bit_exact(padding, per_channel, with_bias, act, seed):
    rng = np.random.default_rng(seed)
    n, h, w, c_in, c_out = (int(v) for v in (rng.integers(1, 3), rng.integers(1, 6), rng.integers(1, 6),
                                            rng.integers(1, 5), rng.integers(1, 5)))
    k_h, k_w, s_h, s_w = (int(v) for v in (rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 4), rng.integers(1, 4)))
    if padding == PADDING_SAME:
        out_h, out_w = h * s_h, w * s_w
    else:
        out_h, out_w = (h - 1) * s_h + k_h, (w - 1) * s_w + k_w
    in_scale = float(rng.uniform(0.01, 0.1))
    w_scales = rng.uniform(0.002, 0.02, size=c_out if per_channel else 1)
    out_scale = float(in_scale * w_scales.max() * rng.uniform(5, 60))
    b = ModelBuilder()
    x = b.tensor((n, h, w, c_in), scale=in_scale, zero_point=int(rng.integers(-128, 128)))
    filt = b.const(rng.integers(-127, 128, size=(c_out, k_h, k_w, c_in)).astype(np.int8), scale=w_scales,
                   zero_point=0, axis=0)
    inputs = [b.const(np.array([n, out_h, out_w, c_out], dtype=np.int32)), filt, x]
    if with_bias:
        inputs.append(b.const(rng.integers(-2000, 2000, size=c_out).astype(np.int32), scale=in_scale * w_scales,
                              zero_point=0))
    y = b.tensor((n, out_h, out_w, c_out), scale=out_scale, zero_point=int(rng.integers(-20, 20)))
    b.op("TRANSPOSE_CONV", inputs, [y], padding=padding, stride_h=s_h, stride_w=s_w, fused_activation_function=act)
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=(n, h, w, c_in)).astype(np.int8)
    assert_matches_or_refused_like_tflm(b.build(), [data])
