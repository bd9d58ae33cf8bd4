"""The gap solver (CP-SAT over access functions) against the paper's closed form and brute force."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from tests.window_cases import window_geometry
from vmcu_tflite.kernels import access as kernel_access
from vmcu_tflite.kernels.gemm import gemm
from vmcu_tflite.planner.access import channel_reduction, concatenation, elementwise, windowed
from vmcu_tflite.planner.gap import brute_force_distance, min_distance


@settings(max_examples=150, deadline=None)
@given(m=st.integers(1, 40), n=st.integers(1, 12), k=st.integers(1, 12), segment=st.integers(1, 16))
def test_gemm_matches_the_closed_form(m, n, k, segment):
    """The GEMM kernel's description, In[M, K] x W[K, N] with row segments: footprint =
    max(MN, MK) + min(N, K) - 1 segments."""
    kernel = gemm(m, k * segment, n * segment, segment, "vmcu_fully_connected_params", "fully_connected")
    distance = kernel_access.min_distance(kernel)
    assert distance == kernel_access.brute_force_distance(kernel)
    x, y = m * k * segment, m * n * segment
    footprint = max(x + max(distance or 0, 0), y)
    if m * n > 1:
        assert footprint == max(x, y) + (min(n, k) - 1) * segment
        gap = max(distance, 0) - max(0, y - x)  # bytes beyond the larger tensor
        assert gap == (min(n, k) - 1) * segment


@st.composite
def window_cases(draw):
    g = draw(window_geometry())
    c_in = draw(st.integers(1, 24))
    channel_reads = draw(st.booleans())
    c_out = c_in if channel_reads else draw(st.integers(1, 24))
    return dict(in_shape=(draw(st.integers(1, 2)), *g["size"], c_in), out_shape=(1, *g["out"], c_out),
                kernel_hw=g["kernel"], stride=g["stride"], dilation=g["dilation"], padding=g["padding"],
                segment=draw(st.integers(1, c_out)), channel_reads=channel_reads)


@settings(max_examples=150, deadline=None)
@given(window_cases())
def test_windowed_solver_equals_brute_force(case):
    case["out_shape"] = (case["in_shape"][0],) + case["out_shape"][1:]
    pattern = windowed(**case)
    assert min_distance(pattern) == brute_force_distance(pattern)


@settings(max_examples=60, deadline=None)
@given(total=st.integers(1, 3000), segment=st.integers(1, 64), pixels=st.integers(1, 50), channels=st.integers(1, 40))
def test_elementwise_and_reduction_stream_in_place(total, segment, pixels, channels):
    for pattern in (elementwise(total, segment), channel_reduction(pixels, channels, min(segment, channels))):
        distance = min_distance(pattern)
        assert distance == brute_force_distance(pattern)
        assert distance is None or distance <= 0  # the output can start right on the input


@settings(max_examples=80, deadline=None)
@given(outer=st.integers(1, 30), inners=st.lists(st.integers(1, 20), min_size=1, max_size=4), data=st.data())
def test_concatenation_solver_equals_brute_force(outer, inners, data):
    x = data.draw(st.integers(0, len(inners) - 1))
    pattern = concatenation(outer, inners[x], sum(inners), sum(inners[:x]))
    assert min_distance(pattern) == brute_force_distance(pattern)
