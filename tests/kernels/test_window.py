"""The window helpers: `interior` is exactly the outputs whose taps are the whole kernel."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vmcu_tflite.kernels.index import Var
from vmcu_tflite.kernels.window import interior, taps


@settings(max_examples=300, deadline=None)
@given(size=st.integers(1, 40), kernel=st.integers(1, 7), stride=st.integers(1, 3), dilation=st.integers(1, 3),
       pad=st.integers(0, 4), extra=st.integers(0, 3))
def test_interior_is_where_every_tap_is_in_bounds(size, kernel, stride, dilation, pad, extra):
    outputs = max(1, (size + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1) + extra
    window = taps(Var("x"), stride, pad, dilation, kernel, size)
    full = [x for x in range(outputs)
            if (window.lo.evaluate({"x": x}), window.hi.evaluate({"x": x})) == (0, kernel)]
    span = interior(outputs, stride, pad, dilation, kernel, size)
    assert (list(range(*span)) if span else []) == full
