"""The window helpers: `interior` is exactly the outputs whose taps are the whole kernel; `loop_bounds`
bounds a window offset over its loops soundly, and at least as tightly as independent intervals;
the C's split of a loop around its interior runs the same values."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from vmcu_tflite.kernels.index import Const, Var, loop_bounds
from vmcu_tflite.kernels.ir import Loop
from vmcu_tflite.kernels.lower import pieces as loop_pieces
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


@settings(max_examples=200, deadline=None)
@given(size=st.integers(1, 30), kernel=st.integers(1, 7), stride=st.integers(1, 3), dilation=st.integers(1, 2),
       pad=st.integers(0, 3), row=st.integers(1, 40), shift=st.integers(-20, 20))
def test_loop_bounds_hold_every_iteration_and_beat_intervals(size, kernel, stride, dilation, pad, row, shift):
    """A window row offset row * (input row) + shift over (y, its in-bounds taps ky): the bounds
    from the loops' own bound expressions contain every value, and are no looser than intervals."""
    outputs = max(1, (size + 2 * pad - (kernel - 1) * dilation - 1) // stride + 1)
    y, ky = Var("y"), Var("ky")
    window = taps(y, stride, pad, dilation, kernel, size)
    offset = (window.origin + ky * dilation) * row + shift
    values = [offset.evaluate({"y": yv, "ky": kv}) for yv in range(outputs)
              for kv in range(window.lo.evaluate({"y": yv}), window.hi.evaluate({"y": yv}))]
    if not values:
        return
    ranges = {"y": (0, outputs - 1)}
    ranges["ky"] = (window.lo.bounds(ranges)[0], max(window.lo.bounds(ranges)[0], window.hi.bounds(ranges)[1] - 1))
    loops = [("y", Const(0), Const(outputs - 1)), ("ky", window.lo, window.hi - 1)]
    lo, hi = loop_bounds(offset, loops, ranges)
    assert lo <= min(values) and max(values) <= hi
    interval = offset.bounds(ranges)
    assert interval[0] <= lo and hi <= interval[1]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 5), st.integers(0, 30), st.integers(1, 3), st.integers(-3, 33), st.integers(-3, 33))
def test_loop_pieces_run_the_same_values_with_interior_tiles_in_the_middle(lo, span, step, a, b):
    """The C's three loops for an `interior` hint run exactly the loop's values, in order, and the
    middle one only tiles [v, v + step) inside [a, b)."""
    hi = lo + span
    original = Loop("x", Const(lo), Const(hi), (), step, (a, b))
    pieces = loop_pieces(original)
    values = [v for piece in pieces for v in range(piece.lo.value, piece.hi.value, piece.step)]
    assert values == list(range(lo, hi, step))
    if len(pieces) > 1:
        middle = next(p for p in pieces if p.lo.value >= max(a, lo) and p.hi.value <= min(b, hi) + step)
        assert all(a <= v and v + step <= b for v in range(middle.lo.value, middle.hi.value, step))
