"""requant_form: the narrow form only where every accumulator provably stays below 2^30 and every
channel shifts right; saturation only for the full int8 activation range."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from vmcu_tflite.kernels.requant import NARROW_LIMIT, negate, requant_form, tables
from vmcu_tflite.ops.common import Requantization


def _requant(shifts, act=(-128, 127)):
    return Requantization(multiplier=(1 << 30,) * len(shifts), shift=tuple(shifts), act_min=act[0], act_max=act[1])


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(1, 40), st.integers(0, 2 ** 31 - 1), st.integers(-128, 127), st.data())
def test_narrow_exactly_when_the_worst_accumulator_fits(channels, depth, bias_magnitude, zero_point, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 32 - 1)))
    weights = rng.integers(-128, 128, size=(channels, depth)).astype(np.int8)
    bias = (rng.integers(-1, 2, size=channels) * rng.integers(0, bias_magnitude + 1, size=channels)).astype(np.int64)
    form = requant_form(weights, bias, _requant([-1] * channels), 0)
    # The worst input: every x + offset at +-255 with the sign of its weight (x in int8, offset -zero_point).
    offset = -zero_point
    worst = 0
    for c in range(channels):
        for sign in (1, -1):
            xs = np.where(weights[c] * sign >= 0, 127, -128) + offset
            worst = max(worst, abs(int(bias[c]) + int(np.dot(xs.astype(np.int64), weights[c].astype(np.int64)))))
    if form.narrow:
        assert worst < NARROW_LIMIT
    bound = max(abs(int(b)) + 255 * int(np.abs(weights[c].astype(np.int64)).sum()) for c, b in enumerate(bias))
    assert form.narrow == (bound < NARROW_LIMIT)


def test_any_left_shift_keeps_the_general_form():
    weights = np.ones((2, 3), np.int8)
    assert requant_form(weights, np.zeros(2), _requant([-3, -1]), 0).narrow
    assert not requant_form(weights, np.zeros(2), _requant([-3, 0]), 0).narrow
    assert not requant_form(weights, np.zeros(2), _requant([2, -1]), 0).narrow


def test_channel_axis_and_saturation():
    depthwise = np.zeros((1, 3, 3, 2), np.int8)
    depthwise[..., 1] = 127  # channel 1: 9 taps of 127
    bias = np.array([0, NARROW_LIMIT - 255 * 127 * 9 - 1])
    assert requant_form(depthwise, bias, _requant([-1, -1]), -1).narrow
    assert not requant_form(depthwise, bias + np.array([0, 1]), _requant([-1, -1]), -1).narrow
    assert requant_form(depthwise, bias, _requant([-1, -1]), -1).saturate
    assert not requant_form(depthwise, bias, _requant([-1, -1], act=(-128, 100)), -1).saturate


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["positive", "negative", "zero"]), st.integers(-31, -1), st.integers(0, 2 ** 30 - 1)),
                min_size=1, max_size=6), st.integers(-128, 127), st.data())
def test_the_narrow_tables_give_tflites_bits(channels, offset, data):
    """Each channel's table entries (requant.tables) through vmcu_requantize_narrow's arithmetic
    (c_arith, which test_fixed_point holds to the C) give TFLite's MultiplyByQuantizedMultiplier of
    the channel's own accumulator plus the offset: a normalized multiplier, a negative one (its
    channel negated: the kernel's accumulator is -x) and a zero one."""
    from vmcu_reference import c_arith
    multipliers = tuple({"positive": (1 << 30) + fraction, "negative": -(1 << 30) - fraction, "zero": 0}[kind]
                        for kind, _, fraction in channels)
    shifts = tuple(0 if kind == "zero" else shift for kind, shift, _ in channels)
    requant = Requantization(multiplier=multipliers, shift=shifts, act_min=-128, act_max=127)
    weights = np.ones((len(channels), 1), np.int8)
    form = requant_form(weights, np.zeros(len(channels)), requant, 0)
    assert form.narrow and form.negated == tuple(c for c, (kind, _, _) in enumerate(channels) if kind == "negative")
    m2, r1 = tables(form, requant)
    sign = negate(np.ones(len(channels), np.int64), form, 0)
    xs = np.array(data.draw(st.lists(st.integers(-(1 << 30) + 1, (1 << 30) - 1), min_size=len(channels),
                                     max_size=len(channels))), np.int64)
    got = c_arith.requantize_narrow(sign * xs, m2.astype(np.int64), r1.astype(np.int64), offset)
    want = c_arith.requantize(xs, np.array(multipliers, np.int64), np.array(shifts, np.int64)) + offset
    np.testing.assert_array_equal(got, want)


def test_a_negative_channel_with_a_weight_of_minus_128_keeps_the_tables():
    """-(-128) is no int8: such a channel cannot be negated, so the layer leaves the narrow form."""
    requant = Requantization(multiplier=(1 << 30, -(1 << 30)), shift=(-3, -3), act_min=-128, act_max=127)
    weights = np.array([[-128, 1], [127, 1]], np.int8)
    assert requant_form(weights, np.zeros(2), requant, 0).narrow
    weights[1, 0] = -128
    form = requant_form(weights, np.zeros(2), requant, 0)
    assert not form.narrow and form.negated == ()
    np.testing.assert_array_equal(tables(form, requant)[0], requant.multiplier)
