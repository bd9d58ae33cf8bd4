"""MEAN and REDUCE_MAX against TFLite Micro: any axes (negative, repeated), keep_dims, differing
quantization (which REDUCE_MAX refuses, as TFLite Micro does)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


@st.composite
def mean_cases(draw):
    shape = draw(st.lists(st.integers(1, 9), min_size=1, max_size=4))
    rank = len(shape)
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank + 1))
    return dict(shape=shape, axes=axes, keep_dims=draw(st.booleans()),
                scale_ratio=draw(st.sampled_from([1.0, None])), seed=draw(st.integers(0, 2**31)))


def reduced_shape(shape, axes, keep_dims):
    resolved = {a % len(shape) for a in axes}
    if keep_dims:
        return [1 if i in resolved else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in resolved]


def build_mean(shape, axes, keep_dims, in_q, out_q, seed=0, kind="MEAN") -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_q[0], zero_point=in_q[1])
    axis = b.const(np.array(axes, dtype=np.int32))
    y = b.tensor(reduced_shape(shape, axes, keep_dims), scale=out_q[0], zero_point=out_q[1])
    b.op(kind, [x, axis], [y], keep_dims=keep_dims)
    b.inputs, b.outputs = [x], [y]
    return b.build(), rng.integers(-128, 128, size=shape).astype(np.int8)


@settings(max_examples=60, deadline=None)
@given(mean_cases())
def test_mean_bit_exact(case):
    rng = np.random.default_rng(case["seed"])
    in_scale = float(rng.uniform(0.005, 0.2))
    # Same scale (as the converter often emits) or a ratio from 1/4 to 4 (multipliers below and above 1).
    ratio = case["scale_ratio"] or float(np.exp(rng.uniform(-1.4, 1.4)))
    in_q = (in_scale, int(rng.integers(-128, 128)))
    out_q = (in_scale * ratio, int(rng.integers(-30, 30)))
    model, data = build_mean(case["shape"], case["axes"], case["keep_dims"], in_q, out_q, case["seed"])
    assert_matches_tflm(model, [data])


@pytest.mark.parametrize("keep_dims", [True, False])
@pytest.mark.parametrize("hw", [(7, 7), (5, 3), (11, 11), (1, 1)])
def test_mean_global_average(hw, keep_dims):
    """The global average pool of a classifier: axes (1, 2) of [1, H, W, C]."""
    model, data = build_mean([1, *hw, 24], [1, 2], keep_dims, (0.05, -7), (0.03, 4), seed=hw[0])
    out = assert_matches_tflm(model, [data])[0]
    assert out.shape == ((1, 1, 1, 24) if keep_dims else (1, 24))


@pytest.mark.parametrize("first_axis, second_axis", [(1, 1), (3, 2), (-1, -1)])
def test_mean_chain_over_single_axes(first_axis, second_axis):
    """Two successive single-axis MEANs, as in MCUNet-VWW: [1, 160, 3, 3] -> [1, 160, 3] (axis 3) -> [1, 160]
    (axis 2), same scale and zero point 6 throughout; also over axis 1 with differing quantization."""
    q = (0.04854252561926842, 6)
    differ = first_axis == 1
    shape = [1, 160, 3, 3]
    first, data = build_mean(shape, [first_axis], False, q, (0.03, -2) if differ else q, seed=1)
    out = assert_matches_tflm(first, [data])[0]
    assert out.shape == tuple(reduced_shape(shape, [first_axis], False))
    shape = list(out.shape)
    second, _ = build_mean(shape, [second_axis], False, (0.03, -2) if differ else q, (0.05, 3) if differ else q)
    out = assert_matches_tflm(second, [out])[0]
    assert out.shape == tuple(reduced_shape(shape, [second_axis], False))


def test_mean_rounding_of_exact_halves():
    """Means ending in .5 of both signs, equal quantization: unlike AVERAGE_POOL_2D, MEAN's fixed-point
    rescaling (multiplier 2**30, shift 0 for a count of 2) rounds the halves up, toward +infinity."""
    model, _ = build_mean([1, 2, 6], [1], False, (0.1, 0), (0.1, 0))
    data = np.array([[[1, -1, 3, -3, 127, -128], [0, 0, 0, 0, 126, -127]]], dtype=np.int8)
    out = assert_matches_tflm(model, [data])[0]
    np.testing.assert_array_equal(out.reshape(-1), [1, 0, 2, -1, 127, -127])


def test_mean_rejects_out_of_range_axis():
    model, _ = build_mean([1, 4, 4], [0], False, (0.1, 0), (0.1, 0))
    graph = parse_model(model)
    op = graph.ops[0]
    axis_tensor = graph.tensors[op.inputs[1]]
    bad = {**graph.tensors, axis_tensor.index: replace(axis_tensor, data=np.array([3], dtype=np.int32))}
    with pytest.raises(ModelError, match="MEAN at index 0: axis 3 is out of range"):
        prepare(replace(graph, tensors=bad), op)


@settings(max_examples=50, deadline=None)
@given(mean_cases())
def test_reduce_max_bit_exact(case):
    rng = np.random.default_rng(case["seed"])
    in_q = (float(rng.uniform(0.005, 0.2)), int(rng.integers(-128, 128)))
    out_q = in_q if case["scale_ratio"] else (in_q[0] * 2, in_q[1])
    model, data = build_mean(case["shape"], case["axes"], case["keep_dims"], in_q, out_q, case["seed"], "REDUCE_MAX")
    assert (assert_matches_or_refused_like_tflm(model, [data]) is None) == (out_q != in_q)
