"""Eq. 1 read from kernel descriptions: CP-SAT over their loads and stores equals brute force."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.access import brute_force_distance, min_distance


@st.composite
def windowed_params(draw):
    kind = draw(st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D"]))
    k_h, k_w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    s_h, s_w = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    d_h, d_w = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    h = draw(st.integers((k_h - 1) * d_h + 1, 9))
    w = draw(st.integers((k_w - 1) * d_w + 1, 9))
    p_h, p_w = draw(st.integers(0, k_h // 2)), draw(st.integers(0, k_w // 2))
    o_h = (h + 2 * p_h - (k_h - 1) * d_h - 1) // s_h + 1
    o_w = (w + 2 * p_w - (k_w - 1) * d_w - 1) // s_w + 1
    c_in = draw(st.integers(1, 12))
    if kind == "CONV_2D":
        groups = draw(st.sampled_from([g for g in (1, 2, 3) if c_in % g == 0]))
        c_out = groups * draw(st.integers(1, 4))
        filter_shape, multiplier = (c_out, k_h, k_w, c_in // groups), 1
    else:
        multiplier = draw(st.integers(1, 2))
        c_out = c_in * multiplier
        filter_shape = (1, k_h, k_w, c_out)
    params = SimpleNamespace(input_shape=(1, h, w, c_in), output_shape=(1, o_h, o_w, c_out),
                             filter=np.zeros(filter_shape, np.int8), stride=(s_h, s_w), dilation=(d_h, d_w),
                             padding=(p_h, p_w), depth_multiplier=multiplier)
    return kind, params, draw(st.integers(1, c_out))


@settings(max_examples=60, deadline=None)
@given(windowed_params())
def test_windowed_descriptions_solver_equals_brute_force(case):
    kind, params, segment = case
    kernel = describe(kind, params, segment)
    assert min_distance(kernel) == brute_force_distance(kernel)
