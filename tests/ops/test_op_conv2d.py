"""CONV_2D against TFLite Micro on random shapes, strides, dilations, paddings and quantization."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder, random_bias, random_weights

ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@st.composite
def conv_cases(draw):
    k_h, k_w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.sampled_from([0, 1]))  # SAME, VALID
    h = draw(st.integers((k_h - 1) * dilation[0] + 1, 12))
    w = draw(st.integers((k_w - 1) * dilation[1] + 1, 12))
    c_in, c_out = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    per_channel = draw(st.booleans())
    return dict(k=(k_h, k_w), stride=stride, dilation=dilation, padding=padding, hw=(h, w), c_in=c_in,
                c_out=c_out, per_channel=per_channel, act=draw(ACTIVATIONS), seed=draw(st.integers(0, 2**31)))


def build_conv(case) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(case["seed"])
    (k_h, k_w), (h, w) = case["k"], case["hw"]
    s_h, s_w = case["stride"]
    d_h, d_w = case["dilation"]
    eff_h, eff_w = (k_h - 1) * d_h + 1, (k_w - 1) * d_w + 1
    if case["padding"] == 0:
        o_h, o_w = -(-h // s_h), -(-w // s_w)
    else:
        o_h, o_w = (h - eff_h) // s_h + 1, (w - eff_w) // s_w + 1
    in_scale, in_zp = float(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    n_scales = case["c_out"] if case["per_channel"] else 1
    w_scales = rng.uniform(0.001, 0.05, size=n_scales)
    out_scale = float(rng.uniform(0.01, 0.5)) * k_h * k_w
    b = ModelBuilder()
    x = b.tensor((1, h, w, case["c_in"]), scale=in_scale, zero_point=in_zp)
    f = b.const(random_weights(rng, (case["c_out"], k_h, k_w, case["c_in"])), scale=w_scales, zero_point=0, axis=0)
    bias = b.const(random_bias(rng, case["c_out"]), scale=in_scale * w_scales, zero_point=0)
    y = b.tensor((1, o_h, o_w, case["c_out"]), scale=out_scale, zero_point=int(rng.integers(-20, 20)))
    b.op("CONV_2D", [x, f, bias], [y], padding=case["padding"], stride_h=s_h, stride_w=s_w,
         dilation_h_factor=d_h, dilation_w_factor=d_w, fused_activation_function=case["act"])
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=(1, h, w, case["c_in"])).astype(np.int8)
    return b.build(), data


@settings(max_examples=60, deadline=None)
@given(conv_cases())
def test_conv2d_bit_exact(case):
    model, data = build_conv(case)
    assert_matches_tflm(model, [data])
