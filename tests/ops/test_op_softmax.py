"""SOFTMAX int8 -> int8 against TFLite Micro: random shapes, beta, input quantization and spreads."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


@st.composite
def softmax_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank - 1)) + (draw(st.integers(1, 64)),)
    return dict(shape=shape, beta=draw(st.sampled_from([1.0, 1.0, 0.5, 2.0, 0.1, 3.7])),
                spread=draw(st.sampled_from([256, 64, 8, 1])), seed=draw(st.integers(0, 2**31)))


def build_softmax(shape, beta, in_scale, in_zp, out_scale=1 / 256, out_zp=-128) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_scale, zero_point=in_zp)
    y = b.tensor(shape, scale=out_scale, zero_point=out_zp)
    b.op("SOFTMAX", [x], [y], beta=beta)
    b.inputs, b.outputs = [x], [y]
    return b.build()


@settings(max_examples=60, deadline=None)
@given(softmax_cases())
def test_softmax_bit_exact(case):
    rng = np.random.default_rng(case["seed"])
    in_scale, in_zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    model = build_softmax(case["shape"], case["beta"], in_scale, in_zp)
    # a narrow spread puts many values near the row maximum (large sums of exps, ties)
    low = int(rng.integers(-128, 128 - case["spread"] + 1))
    data = rng.integers(low, low + case["spread"], size=case["shape"]).astype(np.int8)
    assert_matches_tflm(model, [data])


def test_softmax_rejects_other_output_quantization():
    graph = parse_model(build_softmax((1, 10), 1.0, 0.1, 0, out_scale=1 / 128, out_zp=-128))
    with pytest.raises(ModelError, match="SOFTMAX"):
        prepare(graph, graph.ops[0])


def test_softmax_many_classes():
    """1001 classes as in ImageNet models: fine as long as no 512 values tie at the maximum."""
    rng = np.random.default_rng(7)
    model = build_softmax((2, 1001), 1.0, 0.15, -10)
    data = rng.integers(-128, 128, size=(2, 1001)).astype(np.int8)
    data[1, :600] = -128  # many entries far below the maximum (cut off by diff_min)
    assert_matches_tflm(model, [data])


def test_softmax_tie_overflow_raises_where_tflm_aborts():
    """512 values tied at the row maximum make TFLite Micro abort (TFLITE_CHECK); we raise instead."""
    from vmcu_reference.ops import make_kernel

    assert_matches_tflm(build_softmax((1, 511), 1.0, 0.1, 0), [np.zeros((1, 511), np.int8)])  # the last good one
    graph = parse_model(build_softmax((1, 512), 1.0, 0.1, 0))
    kernel = make_kernel("SOFTMAX", prepare(graph, graph.ops[0]))
    with pytest.raises(ModelError, match="SOFTMAX"):
        kernel.run(np.zeros((1, 512), np.int8))
