"""SVDF against TFLite Micro over sequences of runs: its int16 state carries from run to run."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_sequence_matches_tflm
from tests.tflite_builder import ModelBuilder, random_weights
from vmcu_tflite.errors import ModelError
from vmcu_tflite.reader import parse_model


@st.composite
def svdf_cases(draw):
    return dict(batch=draw(st.integers(1, 2)), input_size=draw(st.integers(1, 24)), units=draw(st.integers(1, 8)),
                rank=draw(st.integers(1, 3)), memory=draw(st.integers(1, 10)), runs=draw(st.integers(3, 5)),
                seed=draw(st.integers(0, 2**31)))


def build_svdf(case, *, state_dtype="int16", variable=True, state_zero_point=0) -> tuple[bytes, list[list[np.ndarray]]]:
    """A one-SVDF model with scales as a converter sets them, and `runs` random inputs."""
    rng = np.random.default_rng(case["seed"])
    batch, n_in, units, rank, memory = (case[k] for k in ("batch", "input_size", "units", "rank", "memory"))
    filters = units * rank
    in_scale, in_zp = float(rng.uniform(0.005, 0.1)), int(rng.integers(-128, 128))
    wf_scale = float(rng.uniform(0.002, 0.02))
    # the feature projection spans a good part of int16 (and sometimes saturates)
    state_scale = float(in_scale * wf_scale * 127 * 64 * np.sqrt(n_in) / rng.uniform(2000, 40000))
    wt_scale = float(rng.uniform(1e-5, 1e-4))
    bias_scale = float(np.float32(state_scale) * np.float32(wt_scale))
    out_scale = float(state_scale * wt_scale * 1.6e8 * np.sqrt(memory * rank) / rng.uniform(20, 200))
    b = ModelBuilder()
    x = b.tensor((batch, n_in), scale=in_scale, zero_point=in_zp)
    wf = b.const(random_weights(rng, (filters, n_in)), scale=wf_scale, zero_point=0)
    wt = b.const(rng.integers(-32767, 32768, size=(filters, memory)).astype(np.int16), scale=wt_scale, zero_point=0)
    bias = b.const(rng.integers(-200000, 200000, size=units).astype(np.int32), scale=bias_scale, zero_point=0)
    state = b.tensor((batch, filters * memory), dtype=state_dtype, scale=state_scale, zero_point=state_zero_point,
                     variable=variable, name="activation_state")
    y = b.tensor((batch, units), scale=out_scale, zero_point=int(rng.integers(-20, 20)))
    b.op("SVDF", [x, wf, wt, bias, state], [y], rank=rank)
    b.inputs, b.outputs = [x], [y]
    runs = [[rng.integers(-128, 128, size=(batch, n_in)).astype(np.int8)] for _ in range(case["runs"])]
    return b.build(), runs


@settings(max_examples=60, deadline=None)
@given(svdf_cases())
def test_svdf_bit_exact_over_a_sequence(case):
    model, runs = build_svdf(case)
    assert_sequence_matches_tflm(model, runs)


def test_state_changes_the_output():
    """The same input twice gives different outputs: the second run sees the first in its state."""
    case = dict(batch=1, input_size=8, units=4, rank=2, memory=5, runs=2, seed=7)
    model, runs = build_svdf(case)
    runs[1] = runs[0]
    ours = assert_sequence_matches_tflm(model, runs)
    assert not np.array_equal(ours[0][0], ours[1][0])


def test_a_state_that_is_not_a_variable_is_refused():
    model, _ = build_svdf(dict(batch=1, input_size=4, units=2, rank=1, memory=3, runs=1, seed=1), variable=False)
    with pytest.raises(ModelError, match="activation_state.*which no earlier operator writes"):
        from vmcu_tflite.pipeline import compile_model
        compile_model(model)


def test_an_asymmetric_state_is_refused():
    """TFLite Micro's integer SVDF is written for a symmetric state (with a zero point of 100 its
    outputs leave the formula): a state zero point other than 0 is refused rather than guessed."""
    model, _ = build_svdf(dict(batch=1, input_size=4, units=2, rank=1, memory=3, runs=1, seed=1), state_zero_point=100)
    from vmcu_tflite.pipeline import compile_model
    with pytest.raises(ModelError, match="state's zero point is 100"):
        compile_model(model)


def test_the_state_is_outside_the_pool():
    """The pool holds the input and output only; the state has its own region, tag first."""
    from vmcu_tflite.pipeline import compile_model
    from vmcu_tflite.state import state_layout

    case = dict(batch=2, input_size=16, units=8, rank=2, memory=10, runs=1, seed=3)
    model, _ = build_svdf(case)
    program = compile_model(model)
    layout = state_layout(program.graph)
    assert program.plan.pool_bytes <= 2 * 16 + 2 * 8
    assert layout.bytes == 4 + 2 * 16 * 10 * 2 and list(layout.offsets.values()) == [4]
    assert parse_model(model).variables() == tuple(layout.offsets)


def test_vmcu_run_reads_and_writes_a_stacked_sequence(tmp_path, capsys):
    """`vmcu-run --runs 3 --inputs seq.npz --outputs out.npz`: input_0 stacked [3, ...] in, each run's
    outputs stacked the same way out, equal to the API's sequence."""
    from vmcu_reference.cli import main
    from vmcu_tflite import convert

    model, runs = build_svdf(dict(batch=1, input_size=6, units=3, rank=2, memory=4, runs=3, seed=21))
    (tmp_path / "m.tflite").write_bytes(model)
    np.savez(tmp_path / "seq.npz", input_0=np.stack([r[0] for r in runs]))
    code = main([str(tmp_path / "m.tflite"), "--runs", "3", "--inputs", str(tmp_path / "seq.npz"), "--outputs",
                 str(tmp_path / "out.npz"), "--compare-tflm"])
    assert code == 0 and "bit-exact with TFLite Micro: 1 outputs and 1 step outputs in each of 3 runs" in \
        capsys.readouterr().out
    expected = convert(model).run_sequence(runs)
    with np.load(tmp_path / "out.npz") as saved:
        assert np.array_equal(saved["output_0"], np.stack([o[0] for o in expected]))
