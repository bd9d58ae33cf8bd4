"""In-place depthwise planes of one channel whose rows are padded (`planes.padded_one_channel`): which
layers take them, their workspace, that the planner gives them a tie's workspace, and that the
interpreter runs them bit-exact with TFLite Micro over random shapes (the C: the fixture models in
tests/c/test_kernels_host.py and the shared models in tests/c/test_models_c.py)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.kernels.test_column_pairs import check_planes_bit_exact
from tests.models_under_test import wide_window_block
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.ir import DotRow
from vmcu_tflite.kernels.planes import one_channel_planes_first, padded_row, plane_bytes
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import vmcu as vmcu_planner


def _layer(hw=6, k=3, c=8, stride=1, tuning="dsp", width=None, row_stride=None):
    """The params one_channel_planes_first and plane_bytes read, of a SAME depthwise layer."""
    width = hw if width is None else width
    row_stride = stride if row_stride is None else row_stride
    return SimpleNamespace(filter=np.zeros((1, k, k, c), np.int8), input_shape=(1, hw, width, c),
                           output_shape=(1, -(-hw // stride), -(-width // row_stride), c), stride=(stride, row_stride),
                           dilation=(1, 1), padding=(k // 2, k // 2), depth_multiplier=1, tuning=tuning)


def _statements(body):
    for s in body:
        yield s
        yield from _statements(getattr(s, "body", ()))


def test_3_tap_rows_of_stride_1_take_padded_one_channel_planes():
    """3x3 layers at a stride of 1 along the row, on maps of any width (a 3x3 map's pixels are all at
    an edge: padded, they pair too); not 5- or 7-tap rows, not a stride of 2 along the row, not Helium."""
    assert one_channel_planes_first(_layer(6)) and one_channel_planes_first(_layer(3))
    assert one_channel_planes_first(_layer(12, stride=2, row_stride=1))
    assert not one_channel_planes_first(_layer(6, k=5)) and not one_channel_planes_first(_layer(6, k=7))
    assert not one_channel_planes_first(_layer(12, stride=2))
    assert not one_channel_planes_first(_layer(6, tuning="helium"))


def test_the_padded_row_holds_every_word_a_pixel_pair_reads():
    """A pair at x reads columns x to x + 3 of the padded row (one word), an odd row's last pixel the
    same word with the padding's pixel after it; the workspace is the plane's padded rows."""
    for width in (3, 5, 6, 11, 12):
        p = _layer(7, width=width)
        o_w, row = p.output_shape[2], padded_row(p)
        last = (o_w - 2 if o_w % 2 == 0 else o_w - 1) + 3  # the last column read
        assert row == last + 1
        assert plane_bytes(p, 1) == 7 * row and plane_bytes(p, 4) == 4 * 7 * width


def test_every_pixel_pair_of_a_padded_plane_is_one_whole_word_per_kernel_row():
    """The kernel's rows are all one paired DotRow of 3 taps over the 4 columns they load (no pixel alone
    at an edge)."""
    program = compile_model(wide_window_block(6, 16, 0, (3,), 7), fuse=False)
    step, planned = next((s, ps) for s, ps in zip(program.steps, program.plan.steps) if ps.in_place)
    kernel = describe(step.kernel, step.params, planned.segment_bytes, planned.in_place)
    dots = [s for s in _statements(kernel.body) if isinstance(s, DotRow)]
    assert planned.segment_bytes == 1 and dots
    assert all(d.acc1 == "acc1" and d.length.c() == "3" for d in dots)


def test_the_planner_gives_one_channel_planes_a_tie(monkeypatch):
    """Where a wider plane needs no more workspace than the padded one-channel plane (a 3x3 map: 2
    channels of 9 bytes, 1 of 3 padded rows of 6), the planner still takes the one-channel plane, as
    it does where the pool allows wider ones; without them it widens the planes, in the same pool."""
    model = wide_window_block(3, 16, 0, (3,))
    program = compile_model(model, fuse=False)
    planes = {s.index: s.segment_bytes for s in program.plan.steps if s.in_place}
    assert planes == {1: 1}
    monkeypatch.setattr(vmcu_planner, "one_channel_planes_first", lambda p: False)
    without = compile_model(model, fuse=False)
    assert without.plan.pool_bytes == program.plan.pool_bytes
    assert {s.index: s.segment_bytes for s in without.plan.steps if s.in_place} != planes


@settings(max_examples=20, deadline=None)
@given(hw=st.integers(3, 12), width=st.integers(3, 13), windows=st.sampled_from([(3,), (3, 3), (7, 3)]),
       seed=st.integers(0, 2**31))
def test_padded_one_channel_planes_are_bit_exact_with_tflite_micro(hw, width, windows, seed):
    pytest.importorskip("tflite_micro")
    check_planes_bit_exact(wide_window_block(hw, 16, seed, windows, width), one_channel_planes_first, 1, seed)


def test_the_tinyengine_style_baseline_keeps_unpadded_planes():
    """The TinyEngine-style plan (`plan_vmcu(in_place_only=True)`, the memory benchmark's peer) models
    TinyEngine's one-channel planes, H x W bytes, not ours with their padding."""
    program = compile_model(wide_window_block(6, 16, 0, (3,), 7), fuse=False)
    baseline = vmcu_planner.plan_vmcu(program.graph, program.steps, in_place_only=True)
    planes = {s.index: s.workspace_bytes for s in baseline.steps if s.in_place}
    ours = {s.index: s.workspace_bytes for s in program.plan.steps if s.in_place}
    assert planes == {1: 6 * 7} and ours == {1: 6 * padded_row(program.steps[1].params)}
