"""In-place depthwise planes of two channels whose words are column pairs (`planes.column_pairs`):
which layers take them, that the planner keeps them in the same pool, and that the interpreter runs
them bit-exact with TFLite Micro over random shapes (the C: tests/c/test_kernels_host.py and
tests/c/test_qemu.py)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.models_under_test import wide_window_block
from vmcu_reference.inputs import random_inputs
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.kernels.planes import column_pair_planes, padded_row, plane_bytes
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import vmcu as vmcu_planner


def _layer(hw=11, k=7, c=8, stride=1, tuning="dsp", width=None):
    """The params column_pair_planes reads, of a SAME depthwise layer."""
    width = hw if width is None else width
    o_w = -(-width // stride)
    return SimpleNamespace(filter=np.zeros((1, k, k, c), np.int8), input_shape=(1, hw, width, c),
                           output_shape=(1, -(-hw // stride), o_w, c), stride=(stride, stride), dilation=(1, 1),
                           padding=(k // 2, k // 2), depth_multiplier=1, tuning=tuning)


def test_the_wide_windows_of_the_dsp_tuning_take_column_pairs():
    """5x5 and 7x7 layers of stride 1 over planes at least about as wide as their windows; not 3x3
    rows (one-channel planes pair those), not stride 2, not Helium, not an odd channel count, not a
    7x7 window over a 3-pixel row (most of its columns padding: MCUNet-VWW1's last depthwise)."""
    assert column_pair_planes(_layer(11, 7)) and column_pair_planes(_layer(22, 5))
    assert column_pair_planes(_layer(6, 7))  # MCUNet-320KB's last 7x7 layers
    assert not column_pair_planes(_layer(11, 3))
    assert not column_pair_planes(_layer(11, 7, stride=2))
    assert not column_pair_planes(_layer(11, 7, tuning="helium"))
    assert not column_pair_planes(_layer(11, 7, c=9))
    assert not column_pair_planes(_layer(3, 7))


def test_the_padded_row_holds_every_word_a_row_of_outputs_reads():
    """A pixel pair at x reads columns x to x + k_w of the padded row (in its words), the last pixel
    alone of an odd row its k_w columns and one more; the plane's workspace is its padded rows."""
    for width, k in ((11, 7), (10, 7), (22, 5), (6, 7)):
        p = _layer(width, k)
        o_w, row = p.output_shape[2], padded_row(p)
        last = (o_w - 2 if o_w % 2 == 0 else o_w - 1) + k  # the last column read
        assert row == last + 1
        assert plane_bytes(p, 2) == 2 * width * row and plane_bytes(p, 4) == 4 * width * width


def test_the_planner_keeps_column_pairs_in_the_same_pool(monkeypatch):
    model = wide_window_block(9)
    program = compile_model(model, fuse=False)
    planes = {s.index: s.segment_bytes for s in program.plan.steps if s.in_place}
    assert planes == {1: 2, 2: 2}
    monkeypatch.setattr(vmcu_planner, "column_pair_planes", lambda p: False)
    without = compile_model(model, fuse=False)
    assert without.plan.pool_bytes == program.plan.pool_bytes
    assert {s.index: s.segment_bytes for s in without.plan.steps if s.in_place} != planes


@settings(max_examples=20, deadline=None)
@given(hw=st.integers(4, 12), width=st.integers(4, 13), channels=st.sampled_from([2, 4, 6]),
       windows=st.sampled_from([(7,), (5,), (7, 5), (5, 7)]), seed=st.integers(0, 2**31))
def test_column_pair_planes_are_bit_exact_with_tflite_micro(hw, width, channels, windows, seed):
    pytest.importorskip("tflite_micro")
    check_planes_bit_exact(wide_window_block(hw, channels, seed, windows, width), column_pair_planes, 2, seed)


def check_planes_bit_exact(model: bytes, form, segment: int, seed: int) -> None:
    """Every in-place layer of `model` that takes the planes `form` says, planes of `segment` channels,
    and the interpreter's outputs those of TFLite Micro."""
    program = compile_model(model, fuse=False)
    for step, planned in zip(program.steps, program.plan.steps):
        if planned.in_place and form(step.params):
            assert planned.segment_bytes == segment
    inputs = random_inputs(program.graph, seed % 1000)
    ours = Interpreter(program).run(inputs).outputs
    theirs, _ = run_tflm(model, inputs, len(ours))
    assert np.asarray(ours[0]).tobytes() == np.asarray(theirs[0]).tobytes()
