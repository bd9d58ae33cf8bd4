"""AVERAGE_POOL_2D against TFLite Micro: filter sizes, strides, SAME/VALID, activations, after a PAD."""
from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import parse_model

ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@st.composite
def pool_cases(draw):
    f_h, f_w = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return dict(filter=(f_h, f_w), stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))),
                padding=draw(st.sampled_from([0, 1])),
                hw=(draw(st.integers(f_h, 11)), draw(st.integers(f_w, 11))), batch=draw(st.integers(1, 2)),
                channels=draw(st.integers(1, 6)), act=draw(ACTIVATIONS), seed=draw(st.integers(0, 2**31)))


def pool_output_hw(case, hw=None):
    (h, w), (f_h, f_w), (s_h, s_w) = hw or case["hw"], case["filter"], case["stride"]
    if case["padding"] == 0:
        return -(-h // s_h), -(-w // s_w)
    return (h - f_h) // s_h + 1, (w - f_w) // s_w + 1


def build_pool(kind: str, case, out_scale_factor: float = 1.0, pad=None) -> tuple[bytes, np.ndarray]:
    """A one-op pool model, or PAD -> pool when `pad` ((top, bottom), (left, right)) is given."""
    rng = np.random.default_rng(case["seed"])
    (h, w), n, c = case["hw"], case["batch"], case["channels"]
    scale, zp = float(rng.uniform(0.005, 0.1)), int(rng.integers(-60, 60))
    b = ModelBuilder()
    x = b.tensor((n, h, w, c), scale=scale, zero_point=zp)
    pool_in, pool_hw = x, (h, w)
    if pad is not None:
        (top, bottom), (left, right) = pad
        pool_hw = (h + top + bottom, w + left + right)
        pool_in = b.tensor((n, *pool_hw, c), scale=scale, zero_point=zp)
        paddings = b.const(np.array([[0, 0], [top, bottom], [left, right], [0, 0]], dtype=np.int32))
        b.op("PAD", [x, paddings], [pool_in])
    o_h, o_w = pool_output_hw(case, pool_hw)
    y = b.tensor((n, o_h, o_w, c), scale=scale * out_scale_factor, zero_point=zp)
    b.op(kind, [pool_in], [y], padding=case["padding"], stride_h=case["stride"][0], stride_w=case["stride"][1],
         filter_height=case["filter"][0], filter_width=case["filter"][1],
         fused_activation_function=case["act"])
    b.inputs, b.outputs = [x], [y]
    return b.build(), rng.integers(-128, 128, size=(n, h, w, c)).astype(np.int8)


def assert_pad_then_pool_matches(kind: str, case, pad) -> None:
    """A PAD feeding a VALID pool is folded into it (the pool reads the pad value at the taps
    outside its input and counts them); before a SAME pool it stays a step (the pool's own padding
    is skipped, the PAD's is not: folded, the two would mix)."""
    model, data = build_pool(kind, case, pad=pad)
    kinds = [s.kernel for s in compile_model(model, fuse=False).steps]
    padded = any(side for axis in pad for side in axis)
    assert kinds == ([kind] if case["padding"] == 1 or not padded else ["PAD", kind]), kinds
    assert_matches_tflm(model, [data])


@settings(max_examples=60, deadline=None)
@given(pool_cases())
def test_average_pool2d_bit_exact(case):
    model, data = build_pool("AVERAGE_POOL_2D", case)
    assert_matches_tflm(model, [data])


@settings(max_examples=25, deadline=None)
@given(pool_cases(), st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 2)),
                               st.tuples(st.integers(0, 2), st.integers(0, 2))))
def test_average_pool2d_after_pad(case, pad):
    assert_pad_then_pool_matches("AVERAGE_POOL_2D", case, pad)


def test_average_pool2d_rounds_half_away_from_zero():
    """2x1 windows whose sums are odd: every mean is an exact half, of both signs."""
    case = dict(filter=(2, 1), stride=(2, 1), padding=1, hw=(2, 8), batch=1, channels=1, act=0, seed=0)
    model, _ = build_pool("AVERAGE_POOL_2D", case)
    data = np.array([[-3, -1, 0, 1, 3, -128, 127, 126], [-2, 0, -1, 2, 2, -127, 126, 127]], dtype=np.int8)
    out = assert_matches_tflm(model, [data.reshape(1, 2, 8, 1)])[0]
    np.testing.assert_array_equal(out.reshape(-1), [-3, -1, -1, 2, 3, -128, 127, 127])


def test_average_pool2d_same_padding_counts_in_bounds_taps_only():
    case = dict(filter=(3, 3), stride=(1, 1), padding=0, hw=(4, 5), batch=1, channels=3, act=0, seed=7)
    model, data = build_pool("AVERAGE_POOL_2D", case)
    assert_matches_tflm(model, [np.full_like(data, 100)])
    assert_matches_tflm(model, [data])


def test_average_pool2d_rejects_requantization():
    case = dict(filter=(2, 2), stride=(2, 2), padding=1, hw=(4, 4), batch=1, channels=1, act=0, seed=0)
    model, _ = build_pool("AVERAGE_POOL_2D", case, out_scale_factor=2.0)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="AVERAGE_POOL_2D at index 0: input and output quantization"):
        prepare(graph, graph.ops[0])
