"""FULLY_CONNECTED against TFLite Micro: batch rows, input shapes, keep_num_dims, bias, scales."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import fully_connected, macs
from vmcu_tflite.reader import parse_model

ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@st.composite
def fc_cases(draw):
    leading = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))  # the rows: M = prod(leading)
    depth = draw(st.integers(1, 48))
    split = draw(st.booleans()) and depth % 2 == 0  # input [..., K / 2, 2]: read as rows of K all the same
    return dict(leading=leading, depth=depth, split=split, channels=draw(st.integers(1, 16)),
                keep_num_dims=draw(st.booleans()) and not split, per_channel=draw(st.booleans()),
                bias=draw(st.booleans()), act=draw(ACTIVATIONS), seed=draw(st.integers(0, 2**31)))


def build_fc(case, filter_zero_point=0) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(case["seed"])
    leading, k, n = list(case["leading"]), case["depth"], case["channels"]
    rows = int(np.prod(leading))
    in_shape = leading + ([k // 2, 2] if case["split"] else [k])
    out_shape = leading + [n] if case["keep_num_dims"] else [rows, n]
    in_scale, in_zp = float(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    w_scales = rng.uniform(0.001, 0.05, size=n if case["per_channel"] else 1)
    out_scale = float(in_scale * w_scales.mean() * 5400.0 * np.sqrt(k) / rng.uniform(10, 100))
    b = ModelBuilder()
    x = b.tensor(in_shape, scale=in_scale, zero_point=in_zp)
    f = b.const(random_weights(rng, (n, k)), scale=w_scales, zero_point=filter_zero_point, axis=0)
    inputs = [x, f]
    if case["bias"]:
        bias_scale = in_scale * w_scales if case["per_channel"] else float(np.float32(in_scale) * np.float32(w_scales[0]))
        inputs.append(b.const(random_bias(rng, n, 20000), scale=bias_scale, zero_point=0))
    y = b.tensor(out_shape, scale=out_scale, zero_point=int(rng.integers(-20, 20)))
    b.op("FULLY_CONNECTED", inputs, [y], fused_activation_function=case["act"],
         keep_num_dims=case["keep_num_dims"])
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-128, 128, size=in_shape).astype(np.int8)
    return b.build(), data


@settings(max_examples=60, deadline=None)
@given(fc_cases())
def test_fully_connected_bit_exact(case):
    model, data = build_fc(case)
    assert_matches_tflm(model, [data])


EXPLICIT = [
    # 4 rows [4, 16] -> [4, 8], per-tensor, as in a batched classifier head
    dict(leading=[4], depth=16, split=False, channels=8, keep_num_dims=False, per_channel=False, bias=True,
         act=1, seed=10),
    # 4 rows, per-channel, keep_num_dims on a [1, 4, 16] input
    dict(leading=[1, 4], depth=16, split=False, channels=8, keep_num_dims=True, per_channel=True, bias=True,
         act=0, seed=11),
    # a flattened 4-D feature map [1, 3, 3, 8] -> [1, 10], no bias
    dict(leading=[1], depth=72, split=False, channels=10, keep_num_dims=False, per_channel=False, bias=False,
         act=0, seed=12),
]


@pytest.mark.parametrize("case", EXPLICIT)
def test_fully_connected_explicit(case):
    model, data = build_fc(case)
    out = assert_matches_tflm(model, [data])[0]
    assert len(np.unique(out)) > 3


def test_fully_connected_flattened_feature_map():
    """An NHWC feature map read as one row, the usual classifier input."""
    rng = np.random.default_rng(5)
    b = ModelBuilder()
    x = b.tensor((1, 3, 3, 8), scale=0.05, zero_point=-3)
    f = b.const(random_weights(rng, (10, 72)), scale=0.01, zero_point=0)
    bias = b.const(random_bias(rng, 10), scale=float(np.float32(0.05) * np.float32(0.01)), zero_point=0)
    y = b.tensor((1, 10), scale=0.2, zero_point=5)
    b.op("FULLY_CONNECTED", [x, f, bias], [y])
    b.inputs, b.outputs = [x], [y]
    assert_matches_tflm(b.build(), [rng.integers(-128, 128, size=(1, 3, 3, 8)).astype(np.int8)])


def test_fully_connected_macs():
    model, _ = build_fc(EXPLICIT[0])
    graph = parse_model(model)
    assert macs("FULLY_CONNECTED", fully_connected.prepare(graph, graph.ops[0])) == 4 * 8 * 16


def test_fully_connected_rejects_filter_zero_point():
    model, _ = build_fc(EXPLICIT[0], filter_zero_point=3)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="FULLY_CONNECTED at index 0: filter zero points"):
        fully_connected.prepare(graph, graph.ops[0])


def test_fully_connected_per_tensor_multiplier_in_double():
    """MLPerf AD01's last layer: an accumulator of -88337 rounds to -117 only with the double-precision
    multiplier (float32 scale products give -118)."""
    b = ModelBuilder()
    x = b.tensor((1, 1), scale=0.024790890514850616, zero_point=-128)
    w = b.const(np.ones((1, 1), np.int8), scale=0.0195566825568676, zero_point=0)
    bias = b.const(np.array([-88337], np.int32), scale=0.0004848275857511908, zero_point=0)
    y = b.tensor((1, 1), scale=0.36449846625328064, zero_point=96)
    b.op("FULLY_CONNECTED", [x, w, bias], [y])
    b.inputs, b.outputs = [x], [y]
    (out,) = assert_matches_tflm(b.build(), [np.array([[-128]], np.int8)])
    assert out[0, 0] == -117 + 96
