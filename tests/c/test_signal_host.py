"""The C arithmetic of the signal filter bank stages (csrc/src/signal) on the host, sanitized,
against the reference kernels: the same single-op models as tests/ops/test_op_signal_*.py, their
params from the converter's prepare, fed to a driver (tests/c/signal_driver.c)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.ops.signal_harness import reference_runs, wide_uint
from tests.ops.test_op_signal_filter_bank import filter_bank_model
from tests.ops.test_op_signal_noise import log_model, pcan_model, spectral_subtraction_model, \
    spectral_subtraction_options
from tests.ops.signal_harness import single_op
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model

ROOT = Path(__file__).resolve().parents[2]
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None, reason="no host C compiler")


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    exe = tmp_path_factory.mktemp("signal") / "signal_driver"
    sources = [ROOT / "tests/c/signal_driver.c", *sorted((ROOT / "csrc/src").rglob("*.c"))]
    subprocess.run([CC, "-std=c99", "-O0", "-Wall", "-Wextra", "-Werror", "-pedantic", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=all", f"-I{ROOT / 'csrc/include'}", f"-I{ROOT / 'csrc/src/signal'}",
                    f"-I{ROOT / 'csrc/src'}",
                    *map(str, sources), "-lm", "-o", str(exe)], check=True)

    def run(*values) -> list[list[int]]:
        text = " ".join(str(int(v)) if not isinstance(v, str) else v for v in values)
        done = subprocess.run([str(exe)], input=text, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return [[int(v) for v in line.split()] for line in done.stdout.strip("\n").split("\n")]
    return run


def params_of(model: bytes):
    graph = parse_model(model)
    return prepare(graph, graph.ops[0])


@settings(max_examples=30, deadline=None)
@given(channels=st.integers(1, 12), bins=st.integers(1, 40), fewer=st.integers(0, 2), seed=st.integers(0, 2**31))
def test_filter_bank(driver, channels, bins, fewer, seed):
    rng = np.random.default_rng(seed)
    model = filter_bank_model(rng, channels, bins, max(1, channels - fewer))
    p = params_of(model)
    x = wide_uint(rng, bins, 32, np.uint32)
    (ours,), = reference_runs(model, [[x]])
    got = driver("filter_bank", p.num_channels, p.input_size, p.output_size, p.weights.size, *p.weights, *p.unweights,
                 *p.frequency_starts, *p.weight_starts, *p.widths, *x)
    assert got == [ours.tolist()]


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 40), shift=st.integers(0, 31), seed=st.integers(0, 2**31))
def test_square_root(driver, n, shift, seed):
    rng = np.random.default_rng(seed)
    x = wide_uint(rng, n, 64, np.uint64)
    x[:4] = np.array([0xFFFF * 0xFFFF + 0xFFFF + 1, (1 << 64) - 1, (1 << 32) - 1, 3], dtype=np.uint64)[:min(4, n)]
    model = single_op("SignalFilterBankSquareRoot", [((n,), "uint64"), ((), "int32")], [((n,), "uint32")], {})
    (ours,), = reference_runs(model, [[x, np.array(shift, np.int32)]])
    assert driver("square_root", n, shift, *x) == [ours.tolist()]


@settings(max_examples=30, deadline=None)
@given(channels=st.integers(1, 41), options=spectral_subtraction_options(), runs=st.integers(1, 5),
       seed=st.integers(0, 2**31))
def test_spectral_subtraction(driver, channels, options, runs, seed):
    """The noise estimate carried over runs, as the step keeps it in the state region."""
    rng = np.random.default_rng(seed)
    model = spectral_subtraction_model(channels, options)
    p = params_of(model)
    inputs = [[wide_uint(rng, channels, 32, np.uint32)] for _ in range(runs)]
    ours = reference_runs(model, inputs)
    got = driver("spectral_subtraction", channels, p.smoothing, p.one_minus_smoothing, p.alternate_smoothing,
                 p.alternate_one_minus_smoothing, p.min_signal_remaining, p.smoothing_bits,
                 p.spectral_subtraction_bits, int(p.clamping), runs, *np.concatenate([r[0] for r in inputs]))
    assert got == [out.tolist() + noise.tolist() for out, noise in ours]


@settings(max_examples=30, deadline=None)
@given(channels=st.integers(1, 41), snr_shift=st.integers(0, 63), seed=st.integers(0, 2**31))
def test_pcan(driver, channels, snr_shift, seed):
    rng = np.random.default_rng(seed)
    lut = rng.integers(-(1 << 15), 1 << 15, size=125).astype(np.int16)
    model = pcan_model(channels, lut, snr_shift)
    x, noise = wide_uint(rng, channels, 32, np.uint32), wide_uint(rng, channels, 32, np.uint32)
    (ours,), = reference_runs(model, [[x, noise]])
    assert driver("pcan", channels, snr_shift, *lut, *x, *noise) == [ours.tolist()]


@settings(max_examples=30, deadline=None)
@given(channels=st.integers(1, 41), correction=st.integers(0, 31),
       scale=st.integers(-(1 << 31), (1 << 31) - 1), seed=st.integers(0, 2**31))
def test_log(driver, channels, correction, scale, seed):
    rng = np.random.default_rng(seed)
    model = log_model(channels, correction, scale)
    p = params_of(model)
    x = wide_uint(rng, channels, 32, np.uint32)
    (ours,), = reference_runs(model, [[x]])
    assert driver("log", channels, correction, p.output_scale, *x) == [ours.tolist()]


def test_log_every_segment(driver):
    x = np.array([(1 << 16) + (s << 9) + d for s in range(128) for d in (0, 256, 511)], dtype=np.uint32)
    model = log_model(x.size, 0, 1 << 16)
    (ours,), = reference_runs(model, [[x]])
    assert driver("log", x.size, 0, 1 << 16, *x) == [ours.tolist()]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("case", ["zero divisor", "INT32_MIN / -1", "shift 32", "negative shift"])
def test_arithmetic_tflite_micro_refuses_stops_the_run(case, tmp_path):
    """A DIV by zero (TFLite Micro's Eval fails), INT32_MIN / -1 and a square root's shift outside
    0..31 (undefined in its C++): the run stops with VMCU_ERROR_ARITHMETIC (8), sanitizers quiet."""
    from tests.ops.test_op_int32_binary import binary_model
    from vmcu_tflite.pipeline import compile_model
    from vmcu_tflite.validate.run import build_and_run
    from vmcu_tflite.validate.targets import SANITIZED_HOST

    if case in ("zero divisor", "INT32_MIN / -1"):
        model = binary_model("DIV", [3], [3], [3])
        a, b = ([5, 6, 7], [1, 0, 1]) if case == "zero divisor" else ([5, -2**31, 7], [1, -1, 1])
        inputs = [np.array(a, np.int32), np.array(b, np.int32)]
    else:
        model = single_op("SignalFilterBankSquareRoot", [((3,), "uint64"), ((), "int32")], [((3,), "uint32")], {})
        inputs = [np.arange(3, dtype=np.uint64), np.array(32 if case == "shift 32" else -1, np.int32)]
    as_bytes = [x.reshape(-1).view(np.int8) for x in inputs]
    status, _, _ = build_and_run(compile_model(model), as_bytes, SANITIZED_HOST, tmp_path)
    assert status == 8
