"""The input offset folded into the bias (vmcu_tflite/kernels/offset.py): the same accumulators, and only where
every partial sum stays in int32."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vmcu_tflite.kernels.offset import dot_offset, folds_offset, kernel_bias


def _fc(filter_: np.ndarray, bias: np.ndarray, offset: int) -> SimpleNamespace:
    return SimpleNamespace(filter=filter_, bias=bias, input_offset=offset)


def _conv(k: int, padding: int, c_in: int = 2) -> SimpleNamespace:
    filter_ = np.ones((3, k, k, c_in), np.int8)
    return SimpleNamespace(input_shape=(1, 6, 6, c_in), output_shape=(1, 6, 6, 3), filter=filter_,
                           stride=(1, 1), dilation=(1, 1), padding=(padding, padding), bias=np.zeros(3, np.int32),
                           input_offset=5)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda k: st.tuples(
    st.lists(st.integers(-128, 127), min_size=k, max_size=k),
    st.lists(st.integers(-128, 127), min_size=k, max_size=k),
    st.integers(-(1 << 24), 1 << 24), st.integers(-127, 128))))
def test_a_folded_bias_gives_the_accumulator_tflite_computes(case):
    x, w, bias, offset = case
    p = _fc(np.array([w], np.int8), np.array([bias], np.int32), offset)
    assert folds_offset(p) and dot_offset(p, "p") == "0"
    tflite = bias + sum((xi + offset) * wi for xi, wi in zip(x, w))
    assert int(kernel_bias(p)[0]) + sum(xi * wi for xi, wi in zip(x, w)) == tflite


def test_a_bias_near_the_int32_limit_keeps_its_offset():
    w = np.full((1, 64), 127, np.int8)
    near = _fc(w, np.array([(1 << 31) - 1 - 255 * 127 * 64], np.int64), 128)
    assert not folds_offset(near) and dot_offset(near, "p") == "p->input_offset"
    np.testing.assert_array_equal(kernel_bias(near), near.bias)
    assert folds_offset(_fc(w, np.array([(1 << 31) - 1 - 256 * 127 * 64], np.int64), 128))


def test_only_convolutions_reading_whole_windows_fold():
    assert folds_offset(_conv(1, 0))  # pointwise: one input pixel
    assert folds_offset(_conv(3, 1))  # a gathered window: padding held at -offset
    assert not folds_offset(_conv(3, 1, c_in=16))  # rows: the taps outside the input are skipped
    np.testing.assert_array_equal(kernel_bias(_conv(3, 1)), [5 * 18] * 3)
