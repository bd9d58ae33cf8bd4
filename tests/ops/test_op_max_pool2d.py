"""MAX_POOL_2D against TFLite Micro: filter sizes, strides, SAME/VALID, activations, after a PAD."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.ops.test_op_average_pool2d import assert_pad_then_pool_matches, build_pool, pool_cases
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


@settings(max_examples=60, deadline=None)
@given(pool_cases())
def test_max_pool2d_bit_exact(case):
    model, data = build_pool("MAX_POOL_2D", case)
    assert_matches_tflm(model, [data])


@settings(max_examples=25, deadline=None)
@given(pool_cases(), st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 2)),
                               st.tuples(st.integers(0, 2), st.integers(0, 2))))
def test_max_pool2d_after_pad(case, pad):
    assert_pad_then_pool_matches("MAX_POOL_2D", case, pad)


def test_max_pool2d_padding_never_wins():
    """All inputs at -128 under SAME padding: the implicit padding must not contribute a 0."""
    case = dict(filter=(3, 3), stride=(2, 2), padding=0, hw=(5, 6), batch=1, channels=2, act=0, seed=4)
    model, data = build_pool("MAX_POOL_2D", case)
    out = assert_matches_tflm(model, [np.full_like(data, -128)])[0]
    assert (out == -128).all()
    assert_matches_tflm(model, [data])


def test_max_pool2d_relu6_clamps():
    case = dict(filter=(2, 2), stride=(2, 2), padding=1, hw=(6, 6), batch=1, channels=4, act=3, seed=9)
    model, data = build_pool("MAX_POOL_2D", case)
    assert_matches_tflm(model, [data])


def test_max_pool2d_rejects_requantization():
    case = dict(filter=(2, 2), stride=(2, 2), padding=1, hw=(4, 4), batch=1, channels=1, act=0, seed=0)
    model, _ = build_pool("MAX_POOL_2D", case, out_scale_factor=1.5)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="MAX_POOL_2D at index 0: input and output quantization"):
        prepare(graph, graph.ops[0])
