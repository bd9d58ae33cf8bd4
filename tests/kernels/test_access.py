"""Eq. 1 read from kernel descriptions: CP-SAT over their loads and stores equals brute force."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.window_cases import window_geometry
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.access import brute_force_distance, min_distance
from vmcu_tflite.ops.common import Requantization


@st.composite
def windowed_params(draw):
    kind = draw(st.sampled_from(["CONV_2D", "DEPTHWISE_CONV_2D"]))
    g = draw(window_geometry(max_kernel=5, max_stride=2, max_size=9))
    k_h, k_w = g["kernel"]
    c_in = draw(st.integers(1, 12))
    if kind == "CONV_2D":
        groups = draw(st.sampled_from([d for d in (1, 2, 3) if c_in % d == 0]))
        c_out = groups * draw(st.integers(1, 4))
        filter_shape, multiplier = (c_out, k_h, k_w, c_in // groups), 1
    else:
        multiplier = draw(st.integers(1, 2))
        c_out = c_in * multiplier
        filter_shape = (1, k_h, k_w, c_out)
    params = SimpleNamespace(input_shape=(1, *g["size"], c_in), output_shape=(1, *g["out"], c_out),
                             filter=np.zeros(filter_shape, np.int8), stride=g["stride"], dilation=g["dilation"],
                             padding=g["padding"], depth_multiplier=multiplier, bias=np.zeros(c_out, np.int32), input_offset=0,
                             requant=Requantization((1 << 30,) * c_out, (-1,) * c_out, -128, 127))
    return kind, params, draw(st.integers(1, c_out))


@settings(max_examples=60, deadline=None)
@given(windowed_params())
def test_windowed_descriptions_solver_equals_brute_force(case):
    kind, params, segment = case
    kernel = describe(kind, params, segment)
    assert min_distance(kernel) == brute_force_distance(kernel)
