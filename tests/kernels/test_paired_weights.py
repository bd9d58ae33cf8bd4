"""Which 1x1 layers store their filter's channel pairs interleaved (`kernels/paired_weights.py`), the
layout itself, and the portable C and the reference interpreter over it, bit-exact with TFLite Micro
(the DSP assembly's paired forms run on the Cortex-M4 in tests/c/test_qemu.py)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.models_under_test import conv_chain
from vmcu_reference.interpreter import MismatchError
from vmcu_tflite.codegen.params import conv2d as conv2d_params
from vmcu_tflite.kernels import paired_weights, widened_weights
from vmcu_tflite.kernels.gemm import group_row_start, row_start
from vmcu_tflite.kernels.index import Var, imin
from vmcu_tflite.kernels.paired_weights import PAIRED_ROWS, interleaved, pair_weights
from vmcu_tflite.kernels.tuning import tuned
from vmcu_tflite.kernels.widened_weights import widen_weights
from vmcu_tflite.passes import simplify
from vmcu_tflite.reader import read_model
from vmcu_tflite.steps import build_steps
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import HOST

HAVE_TFLM = importlib.util.find_spec("tflite_micro") is not None


@settings(max_examples=25, deadline=None)
@given(pairs=st.integers(1, 6), groups=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_interleaving_puts_each_pairs_words_side_by_side(pairs, groups, seed):
    """Weight i of channel 2j + k sits at byte 8 (i // 4) + 4k + i % 4 of pair j's 2 * depth bytes:
    the same bytes, one LDRD per group of four for both rows."""
    rows = np.random.default_rng(seed).integers(-128, 128, (2 * pairs, 4 * groups), dtype=np.int8)
    flat = interleaved(rows).reshape(-1)
    depth = 4 * groups
    for c in range(2 * pairs):
        for i in range(depth):
            assert flat[(c // 2) * 2 * depth + 8 * (i // 4) + 4 * (c % 2) + i % 4] == rows[c, i]
    assert sorted(flat.tolist()) == sorted(rows.reshape(-1).tolist())


@settings(max_examples=50, deadline=None)
@given(pairs=st.integers(1, 40), window=st.integers(1, 32).map(lambda g: 4 * g), width=st.sampled_from([2, 4]),
       data=st.data())
def test_a_group_from_an_even_channel_finds_its_paired_rows_without_a_division(pairs, window, width, data):
    """The linear row starts of a group from an even channel u (`group_row_start`) are `row_start`'s of
    channels min(u + k, units - 1): the same bytes, the clamped ones the last row's."""
    units = 2 * pairs
    u = 2 * data.draw(st.integers(0, (units - 1) // 2))
    for k in range(width):
        linear = group_row_start(Var("u"), k, units, window, paired=True, even=True)
        divided = row_start(imin(Var("u") + k, units - 1), window, paired=True)
        at = {"u": np.array(u)}
        assert int(linear.evaluate(at)) == int(divided.evaluate(at))
    assert "/" not in group_row_start(Var("u"), 3, units, window, paired=True, even=True).c()


@settings(max_examples=25, deadline=None)
@given(channels=st.lists(st.sampled_from([3, 8, 12, 16, 24, 40, 64, 96, 100]), min_size=2, max_size=5),
       tuning=st.sampled_from(["dsp", "helium", "scalar"]), share=st.sampled_from([0.0, 1.0]))
def test_the_dsp_tunings_even_layers_of_whole_groups_are_paired(tmp_path_factory, channels, tuning, share):
    """Paired: exactly the `dsp` tuning's int8 1x1 layers with an even count of output channels and
    rows of a multiple of 8 inputs the assembly takes (up to PAIRED_ROWS), not those widened to int16."""
    path = tmp_path_factory.mktemp("p") / "chain.tflite"
    path.write_bytes(conv_chain(channels=tuple(channels), hw=4))
    steps = pair_weights(widen_weights(tuned(build_steps(simplify(read_model(path))), tuning), share))
    for s in steps:
        if s.kernel != "CONV_2D":
            continue
        p = s.params
        depth, units = p.input_shape[3], p.output_shape[3]
        expected = (tuning == "dsp" and not p.int16_weights and units % 2 == 0 and depth % 8 == 0
                    and 8 <= depth <= PAIRED_ROWS)
        assert p.paired_weights is expected


def test_portable_c_over_paired_weights_is_bit_exact(tmp_path):
    """Paired 1x1 layers (rows of 16 to 56 inputs; GEMM steps and a fused chain): the portable C
    (vmcu_dot_s16_s8_paired) matches the reference interpreter and TFLite Micro."""
    model = tmp_path / "paired.tflite"
    model.write_bytes(conv_chain(channels=(16, 56, 24, 48, 8), hw=5, spread=True))
    for fuse in (False, True):
        result = validate(model, HOST, seed=2, work=tmp_path / f"run{fuse}", fuse=fuse)
        assert result.status == 0 and result.matches_reference
        assert result.matches_tflm is (True if HAVE_TFLM else None)
        source = "".join(path.read_text() for path in (tmp_path / f"run{fuse}" / "model").glob("*.c"))
        assert "vmcu_dot_s16_s8_paired(" in source or "vmcu_dot4_s16_s8_paired(" in source


@pytest.mark.parametrize("fuse", [False, True], ids=["gemm", "chain"])
def test_the_interpreter_reads_the_filter_as_the_c_holds_it(fuse, tmp_path, monkeypatch):
    """The checker runs what it checks: with the filter table written in plain rows while the
    descriptions say paired, the reference interpreter (which reads the emitted tables) computes
    other values than TFLite's formulas, and says so before any C is built."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 0.0)
    monkeypatch.setattr(conv2d_params, "interleaved", lambda rows: rows)
    model = tmp_path / "paired.tflite"
    model.write_bytes(conv_chain(channels=(16, 24, 32, 8), hw=5, spread=True))
    with pytest.raises(MismatchError, match="its kernel description stores"):
        validate(model, HOST, seed=1, work=tmp_path / "run", fuse=fuse)


def test_unpaired_layers_are_left_alone(tmp_path, monkeypatch):
    """With pairing off (no layer chosen) the filters are written in plain rows and the C reads them
    through the unpaired helpers: the layout is a choice of the converter, nothing else changes."""
    monkeypatch.setattr(paired_weights, "pairs_weights", lambda p: False)
    model = tmp_path / "plain.tflite"
    model.write_bytes(conv_chain(channels=(16, 24, 8), hw=5))
    result = validate(model, HOST, seed=2, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert "_paired(" not in source
