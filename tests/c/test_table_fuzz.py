"""Whatever one integer of its tables says, the runtime refuses a model with a status or runs it
inside its buffers: every mutant of each fixture below (tests/c/table_fuzz/) under ASan + UBSan.

The fixtures together call every hand-written kernel and every generated kind (a chain with and
without a residual ADD, a lone depthwise, fully connected). A fixture is fuzzed whole, every
integer of its tables with every value class, up to MUTANTS per fixture (then a deterministic
sample that keeps every table kind with every value class). The longer run, every mutant of
every model, is `python -m tests.c.table_fuzz --models models/*.tflite`.
"""
from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from tests.c.table_fuzz import (CC, STATUSES, VALUE_CLASSES, FuzzTarget, Mutant, build_runtime, cast, run_mutants,
                                sample, site_values, summary)

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = {
    "kws_like": "a chain of conv and depthwise layers, FULLY_CONNECTED, SOFTMAX",
    "depthwise_block": "chains, one ending in a residual ADD, and a CONV_2D",
    "pad_conv": "CONV_2D and DEPTHWISE_CONV_2D steps",
    "svdf_keyword": "SVDF with state, FULLY_CONNECTED, SOFTMAX",
    "lstm_sequence": "UNIDIRECTIONAL_SEQUENCE_LSTM with state",
    "elementwise": "ADD, MUL, LOGISTIC, CONCATENATION",
    "pool_mean_softmax": "AVERAGE_POOL_2D, MAX_POOL_2D, MEAN, SOFTMAX",
    "activations": "lookup tables, LOG_SOFTMAX, QUANTIZE, SUB, MAXIMUM, MINIMUM, PRELU, ADD, L2_NORMALIZATION",
    "slices_resize": "RESIZE_BILINEAR, SPLIT, STRIDED_SLICE, GATHER, PADV2, REDUCE_MAX, MUL, TRANSPOSE_CONV",
    "resize_transpose": "CONV_2D through a folded RESIZE_NEAREST_NEIGHBOR, TRANSPOSE",
    "ssd_detector": "CONV_2D, CONCATENATION, CONSTANT (a folded output copied from flash)",
    "ssd_postprocess": "LOGISTIC, QUANTIZE, TFLite_Detection_PostProcess (float32 outputs, floats as bits)",
    "stateful_stream": "CALL_ONCE, READ_VARIABLE, ASSIGN_VARIABLE (steps without output), BATCH_MATMUL",
    "sixteen_by_eight": "int16: PAD, AVERAGE_POOL_2D_S16, MAX_POOL_2D_S16, TRANSPOSE, REQUANTIZE, CONCATENATION, "
                        "MEAN_S16",
    "heavy_16x8": "int16 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED steps (int64 bias tables)",
    "elementwise16": "int16 LOGISTIC, TANH, ADD, MUL (with a constant), SUB, RELU, LEAKY_RELU, RELU6, SOFTMAX",
    "lstm_sequence_16x8": "UNIDIRECTIONAL_SEQUENCE_LSTM_S16 with int16 state (int64 bias tables), FULLY_CONNECTED",
}
MUTANTS = 2000
pytestmark = pytest.mark.skipif(CC is None, reason="no gcc")


@pytest.fixture(scope="session")
def sanitized_runtime(tmp_path_factory) -> Path:
    return build_runtime(tmp_path_factory.mktemp("runtime"))


@pytest.mark.parametrize("stem", FIXTURES)
def test_every_mutant_is_refused_or_runs_cleanly(stem, sanitized_runtime, tmp_path):
    target = FuzzTarget(ROOT / "models" / f"{stem}.tflite", tmp_path, sanitized_runtime)
    mutants = sample(target.mutants(), target.sites, MUTANTS)
    result = target.run(mutants)
    assert not result.failures, summary(target, result)
    assert {o.invoked for o in result.outcomes.values()} <= set(STATUSES)
    assert all(result.outcomes[m.id].verified != 0 for m in mutants)
    # every kind of table and every value class was fuzzed
    tables = {target.sites[m.site].table for m in mutants}
    assert {"model", "tensors", "steps", "inputs", "outputs", "params"} <= tables
    assert ("state_init" in tables) == (stem in ("svdf_keyword", "lstm_sequence", "lstm_sequence_16x8",
                                                 "stateful_stream"))
    assert {m.value_class for m in mutants} == set(VALUE_CLASSES)
    assert len(mutants) >= 300


def test_streamed_ports_are_refused_or_run_cleanly(sanitized_runtime, tmp_path):
    """kws_like with its input pulled and its output pushed row by row: every mutant of the I/O
    tables (rows, step, bytes, tensor among them) and of the model struct, with the callbacks."""
    target = FuzzTarget(ROOT / "models" / "kws_like.tflite", tmp_path, sanitized_runtime, stream_inputs=(0,),
                        stream_outputs=(0,))
    mutants = [m for m in target.mutants() if target.sites[m.site].table in ("model", "tensors", "inputs", "outputs")]
    result = target.run(mutants)
    assert not result.failures, summary(target, result)
    assert {o.invoked for o in result.outcomes.values()} <= set(STATUSES)
    assert all(result.outcomes[m.id].verified != 0 for m in mutants)
    fuzzed = {target.sites[m.site].name for m in mutants}
    assert {"inputs[0].rows", "inputs[0].step", "outputs[0].rows", "outputs[0].step"} <= fuzzed
    # the tables as written run: the callbacks are called, the run is OK
    assert result.outcomes[-1].invoked == 0


def test_values_are_cast_to_the_site_type_and_new():
    assert cast(-1, "uint8_t") == 255 and cast(1 << 31, "int32_t") == -(1 << 31) and cast(65536, "int16_t") == 0
    assert cast(200, "int8_t") == -56 and cast(-(1 << 31), "uint32_t") == 1 << 31
    values = dict(site_values(5, "int32_t"))
    assert set(values) == set(VALUE_CLASSES)
    assert (values["+1"], values["-1 off"], values["x2"], values["INT32_MIN"]) == (6, 4, 10, -(1 << 31))
    # as uint8_t, 256, 65536, 2^30, INT32_MIN and 2 x 0 are the original 0; INT32_MAX and 0 - 1 are -1's 255
    assert site_values(0, "uint8_t") == [("1", 1), ("-1", 255), ("2", 2), ("16", 16)]


def test_a_sample_keeps_every_table_and_value_class():
    class Site:
        def __init__(self, table):
            self.table = table

    sites = [Site(t) for t in ("model", "steps", "params")]
    mutants = [Mutant(i, i % 3, VALUE_CLASSES[i % len(VALUE_CLASSES)], i) for i in range(600)]
    chosen = sample(mutants, sites, 50)
    assert len(chosen) == 50 and chosen == sorted(chosen, key=lambda m: m.id)
    keys = {(sites[m.site].table, m.value_class) for m in mutants}
    assert {(sites[m.site].table, m.value_class) for m in chosen} == keys
    assert sample(mutants, sites, 50) == chosen


STAND_IN = """#!{python}
import os, signal, sys
for line in sys.stdin:
    mutant, site, value = map(int, line.split())
    print("start", mutant, flush=True)
    if mutant == 3:
        sys.stderr.write("==1==ERROR: AddressSanitizer: heap-buffer-overflow\\n    #0 0x1 in kernel k.c:7\\n")
        sys.exit(1)
    if mutant == 5:
        os.kill(os.getpid(), signal.SIGALRM)
    if mutant == 6:
        os.kill(os.getpid(), signal.SIGSEGV)
    verified = 0 if mutant in (-1, 7) else 2
    invoked = 9 if mutant == 8 else 0 if mutant == -1 else 2
    print("end", mutant, verified, invoked, 0, 0, 0, flush=True)
"""


def test_the_driver_reports_every_failure_and_goes_on(tmp_path):
    """A stand-in for the fuzzing program: a sanitizer report, a hang, a crash, a mutant verified,
    a status outside vmcu_status; the driver blames each on its mutant and runs all the others."""
    exe = tmp_path / "stand_in"
    exe.write_text(STAND_IN.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    mutants = [Mutant(i, 0, "0", 0) for i in range(10)]
    outcomes, failures = run_mutants(exe, mutants, hang_seconds=5)
    found = {f.mutant.id: f.what for f in failures}
    assert found == {3: "sanitizer", 5: "hang", 6: "crash", 7: "verified", 8: "bad status"}
    assert "heap-buffer-overflow" in next(f.report for f in failures if f.mutant.id == 3)
    assert set(outcomes) == {-1, 0, 1, 2, 4, 7, 8, 9}


@pytest.mark.parametrize("name", ["signal_chain", "typed_copies"])
def test_audio_front_end_kernels_refuse_or_run_cleanly(name, sanitized_runtime, tmp_path):
    """The signal library's window, auto scale, real FFT and energy, CAST, int16/int32 STRIDED_SLICE and
    CONCATENATION, and int16/int32/uint32 graph inputs and outputs (vmcu_io.type): every mutant."""
    from tests.ops.test_op_cast import build_typed_copies
    from tests.ops.test_op_signal import signal_chain

    model = tmp_path / f"{name}.tflite"
    model.write_bytes(signal_chain() if name == "signal_chain" else build_typed_copies()[0])
    target = FuzzTarget(model, tmp_path, sanitized_runtime)
    mutants = sample(target.mutants(), target.sites, MUTANTS)
    result = target.run(mutants)
    assert not result.failures, summary(target, result)
    assert {o.invoked for o in result.outcomes.values()} <= set(STATUSES)
    assert {"model", "tensors", "steps", "inputs", "outputs", "params"} <= {target.sites[m.site].table for m in mutants}
    assert any(target.sites[m.site].name.endswith(".type") for m in mutants)


@pytest.mark.parametrize("name", ["audio_tail", "int32_binary"])
def test_filter_bank_stages_and_int32_arithmetic_refuse_or_run_cleanly(name, sanitized_runtime, tmp_path):
    """The signal filter bank stages (their constant tables, the noise estimate in the state region,
    NOISE_ESTIMATE) and INT32_BINARY (a broadcast over int32 constants): every mutant."""
    import numpy as np

    from tests.ops.test_op_int32_binary import binary_model
    from tests.ops.test_op_signal_chain import front_end_tail

    model = tmp_path / f"{name}.tflite"
    model.write_bytes(front_end_tail(channels=6, bins=24) if name == "audio_tail" else
                      binary_model("MUL", [2, 3, 4], [3, 1], [2, 3, 4], 1, constant=np.arange(3).reshape(3, 1) - 1))
    target = FuzzTarget(model, tmp_path, sanitized_runtime)
    mutants = sample(target.mutants(), target.sites, MUTANTS)
    result = target.run(mutants)
    assert not result.failures, summary(target, result)
    assert {o.invoked for o in result.outcomes.values()} <= set(STATUSES)
    tables = {target.sites[m.site].table for m in mutants}
    assert {"model", "tensors", "steps", "inputs", "outputs", "params"} <= tables
    assert ("state_init" in tables) == (name == "audio_tail")
