"""DEPTHWISE_CONV_2D against TFLite Micro: depth multipliers, strides, dilations, paddings, quantization."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import depthwise_conv2d, macs
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps

ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@st.composite
def depthwise_cases(draw):
    k_h, k_w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    return dict(k=(k_h, k_w), stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), dilation=dilation,
                padding=draw(st.sampled_from([0, 1])),
                hw=(draw(st.integers((k_h - 1) * dilation[0] + 1, 12)),
                    draw(st.integers((k_w - 1) * dilation[1] + 1, 12))),
                batch=draw(st.integers(1, 2)), c_in=draw(st.integers(1, 8)), multiplier=draw(st.integers(1, 3)),
                per_channel=draw(st.booleans()), bias=draw(st.booleans()), act=draw(ACTIVATIONS),
                seed=draw(st.integers(0, 2**31)))


def build_depthwise(case, declared_multiplier=None) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(case["seed"])
    (k_h, k_w), (h, w) = case["k"], case["hw"]
    (s_h, s_w), (d_h, d_w) = case["stride"], case["dilation"]
    n, c_in, m = case["batch"], case["c_in"], case["multiplier"]
    c_out = c_in * m
    if case["padding"] == 0:
        o_h, o_w = -(-h // s_h), -(-w // s_w)
    else:
        o_h, o_w = (h - (k_h - 1) * d_h - 1) // s_h + 1, (w - (k_w - 1) * d_w - 1) // s_w + 1
    in_scale, in_zp = float(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    w_scales = rng.uniform(0.001, 0.05, size=c_out if case["per_channel"] else 1)
    # Aim the typical output at a few tens of steps so that rounding, not saturation, is exercised.
    acc_std = 5400.0 * np.sqrt(k_h * k_w)
    out_scale = float(in_scale * w_scales.mean() * acc_std / rng.uniform(10, 100))
    b = ModelBuilder()
    x = b.tensor((n, h, w, c_in), scale=in_scale, zero_point=in_zp)
    f = b.const(random_weights(rng, (1, k_h, k_w, c_out)), scale=w_scales, zero_point=0, axis=3)
    inputs = [x, f]
    if case["bias"]:
        inputs.append(b.const(random_bias(rng, c_out, 20000), scale=in_scale * w_scales, zero_point=0))
    y = b.tensor((n, o_h, o_w, c_out), scale=out_scale, zero_point=int(rng.integers(-20, 20)))
    b.op("DEPTHWISE_CONV_2D", inputs, [y], padding=case["padding"], stride_h=s_h, stride_w=s_w,
         dilation_h_factor=d_h, dilation_w_factor=d_w, fused_activation_function=case["act"],
         depth_multiplier=m if declared_multiplier is None else declared_multiplier)
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=(n, h, w, c_in)).astype(np.int8)
    return b.build(), data


@settings(max_examples=60, deadline=None)
@given(depthwise_cases())
def test_depthwise_conv2d_bit_exact(case):
    model, data = build_depthwise(case)
    assert_matches_tflm(model, [data])


EXPLICIT = [
    # depth multiplier 2, SAME, stride 2, per-channel, MobileNet-like 3x3
    dict(k=(3, 3), stride=(2, 2), dilation=(1, 1), padding=0, hw=(9, 10), batch=1, c_in=4, multiplier=2,
         per_channel=True, bias=True, act=3, seed=1),
    # depth multiplier 3 with dilation and per-tensor scale, VALID
    dict(k=(3, 2), stride=(1, 1), dilation=(2, 2), padding=1, hw=(11, 8), batch=1, c_in=3, multiplier=3,
         per_channel=False, bias=True, act=0, seed=2),
    # a single input channel expanded 8 times, no bias
    dict(k=(5, 5), stride=(1, 2), dilation=(1, 1), padding=0, hw=(7, 7), batch=2, c_in=1, multiplier=8,
         per_channel=True, bias=False, act=1, seed=3),
]


@pytest.mark.parametrize("case", EXPLICIT)
def test_depthwise_conv2d_explicit(case):
    model, data = build_depthwise(case)
    out = assert_matches_tflm(model, [data])[0]
    assert len(np.unique(out)) > 3  # the case is not degenerate (all saturated)


def test_depthwise_conv2d_macs():
    case = EXPLICIT[0]
    model, _ = build_depthwise(case)
    graph = parse_model(model)
    params = depthwise_conv2d.prepare(graph, graph.ops[0])
    assert macs("DEPTHWISE_CONV_2D", params) == 1 * 5 * 5 * 8 * 3 * 3


def test_depthwise_conv2d_rejects_wrong_multiplier():
    model, _ = build_depthwise(EXPLICIT[0], declared_multiplier=1)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="DEPTHWISE_CONV_2D at index 0: .*depth multiplier"):
        depthwise_conv2d.prepare(graph, graph.ops[0])


def test_one_input_channel_runs_as_a_convolution():
    """A depthwise layer over one channel (a grayscale stem) becomes a CONV_2D step with the filter
    as [C_out, K_h, K_w, 1] and the same MACs; the EXPLICIT case above checks its bits against TFLite Micro."""
    case = dict(EXPLICIT[2], batch=1)
    model, _ = build_depthwise(case)
    graph = parse_model(model)
    depthwise = depthwise_conv2d.prepare(graph, graph.ops[0])
    (step,) = build_steps(graph)
    assert step.kernel == "CONV_2D" and step.params.filter.shape == (8, 5, 5, 1)
    np.testing.assert_array_equal(step.params.filter[:, :, :, 0], np.moveaxis(depthwise.filter[0], -1, 0))
    assert step.macs == macs("DEPTHWISE_CONV_2D", depthwise)
    assert_matches_tflm(model, [np.random.default_rng(4).integers(-128, 128, size=(1, 7, 7, 1)).astype(np.int8)])
