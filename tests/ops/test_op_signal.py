"""The signal library's SignalWindow, SignalFftAutoScale, SignalRfft and SignalEnergy against TFLite
Micro (custom operators its Python interpreter registers): sizes, shifts, FFT lengths and inputs at
full scale, silence, impulses, small and extreme values; what TFLite Micro refuses (or would read
or write outside a tensor for) is refused in one line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import ModelError
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model

KINDS = ("full", "silence", "impulse", "small", "extremes", "ramp")


def samples(rng: np.random.Generator, kind: str, shape) -> np.ndarray:
    """int16 audio of one kind: full-scale noise, zeros, a single full-scale impulse, quiet noise,
    only -32768 and 32767, a ramp over the whole range."""
    n = int(np.prod(shape))
    if kind == "full":
        x = rng.integers(-32768, 32768, n)
    elif kind == "silence":
        x = np.zeros(n)
    elif kind == "impulse":
        x = np.zeros(n)
        x[rng.integers(0, n)] = rng.choice([-32768, 32767])
    elif kind == "small":
        bound = 1 << int(rng.integers(0, 12))
        x = rng.integers(-bound, bound + 1, n)
    elif kind == "extremes":
        x = rng.choice([-32768, 32767], n)
    else:
        x = np.linspace(-32768, 32767, n)
    return np.asarray(x, dtype=np.int64).astype(np.int16).reshape(shape)


def window_model(shape, weights, shift):
    b = ModelBuilder()
    x, y = b.tensor(shape, "int16"), b.tensor(shape, "int16")
    b.op("CUSTOM", [x, b.const(np.asarray(weights, np.int16))], [y], custom_code="SignalWindow",
         custom_options={"shift": shift})
    b.inputs, b.outputs = [x], [y]
    return b.build()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 64), st.integers(1, 3), st.integers(0, 31), st.sampled_from(KINDS), st.sampled_from(KINDS),
       st.integers(0, 2**31))
def test_window_bit_exact(size, repeats, shift, kind, weight_kind, seed):
    rng = np.random.default_rng(seed)
    shape = (repeats, size) if repeats > 1 else (size,)
    weights = samples(rng, weight_kind, (size,))
    assert_matches_tflm(window_model(shape, weights, shift), [samples(rng, kind, shape)])


def auto_scale_model(n):
    b = ModelBuilder()
    x, y, bits = b.tensor((n,), "int16"), b.tensor((n,), "int16"), b.tensor((), "int32")
    b.op("CUSTOM", [x], [y, bits], custom_code="SignalFftAutoScale")
    b.inputs, b.outputs = [x], [y, bits]
    return b.build()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.sampled_from(KINDS), st.integers(0, 2**31))
def test_fft_auto_scale_bit_exact(n, kind, seed):
    assert_matches_tflm(auto_scale_model(n), [samples(np.random.default_rng(seed), kind, (n,))])


@pytest.mark.parametrize("values", [[-32768, 5], [5, -32768, 3], [-32768], [0, 0, 1], [-1, 0], [16384, -16384]])
def test_fft_auto_scale_of_the_wrapping_maximum(values):
    """TFLite Micro's int16 running maximum stores -(-32768) as -32768, which the next sample replaces."""
    assert_matches_tflm(auto_scale_model(len(values)), [np.array(values, np.int16)])


def rfft_model(rows, length, fft_length, t=7):
    b = ModelBuilder()
    shape = (rows, length) if rows > 1 else (length,)
    x = b.tensor(shape, "int16")
    y = b.tensor(shape[:-1] + (fft_length + 2,), "int16")
    b.op("CUSTOM", [x], [y], custom_code="SignalRfft", custom_options={"T": t, "fft_length": fft_length})
    b.inputs, b.outputs = [x], [y]
    return b.build(), shape


def _radix_2_to_5(n: int) -> bool:
    for q in (2, 3, 5):
        while n % q == 0:
            n //= q
    return n == 1


# even lengths whose half kissfft splits into radix 2, 3, 4 and 5 stages (powers of two, 480, ...)
FFT_LENGTHS = [2 * n for n in range(2, 1025) if _radix_2_to_5(n)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FFT_LENGTHS), st.integers(1, 2), st.floats(0.05, 1.0),
       st.sampled_from(KINDS), st.integers(0, 2**31))
def test_rfft_bit_exact(fft_length, rows, fill, kind, seed):
    model, shape = rfft_model(rows, max(1, int(fft_length * fill)), fft_length)
    assert_matches_tflm(model, [samples(np.random.default_rng(seed), kind, shape)])


@pytest.mark.parametrize("fft_length", [512, 480])
def test_rfft_of_micro_speech_frames(fft_length):
    """micro_speech's shape: 480 samples padded to 512 (or not padded: 480 = 2 x 4 x 4 x 3 x 5),
    full-scale noise and a pure tone."""
    model, shape = rfft_model(1, 480, fft_length)
    tone = np.round(32767 * np.sin(2 * np.pi * 1000 * np.arange(480) / 16000)).astype(np.int16)
    for x in (samples(np.random.default_rng(1), "full", shape), tone):
        assert_matches_tflm(model, [x])


def energy_model(pairs, size, start, end):
    b = ModelBuilder()
    x, y = b.tensor((2 * pairs,), "int16"), b.tensor((size,), "uint32")
    b.op("CUSTOM", [x], [y], custom_code="SignalEnergy", custom_options={"start_index": start, "end_index": end})
    b.inputs, b.outputs = [x], [y]
    return b.build()


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 300), st.data(), st.sampled_from(KINDS), st.integers(0, 2**31))
def test_energy_bit_exact(pairs, data, kind, seed):
    """The bins [start, end) as TFLite Micro computes them; the others (which it leaves as its arena
    had them) are 0 here."""
    size = data.draw(st.integers(1, pairs))
    start = data.draw(st.integers(0, size))
    end = data.draw(st.integers(start, size))
    model = energy_model(pairs, size, start, end)
    x = samples(np.random.default_rng(seed), kind, (2 * pairs,))
    ours = Interpreter(compile_model(model)).run([x]).outputs[0]
    theirs = run_tflm(model, [x], 1)[0][0]
    assert ours.dtype == theirs.dtype == np.uint32
    assert ours[start:end].tolist() == theirs[start:end].tolist()
    assert not ours[:start].any() and not ours[end:].any()
    pairs_ = x.astype(np.int64).reshape(-1, 2)[start:end]
    assert ours[start:end].tolist() == ((pairs_ ** 2).sum(axis=1) % (1 << 32)).tolist()


def test_energy_of_the_full_spectrum_matches_whole():
    assert_matches_tflm(energy_model(257, 257, 0, 257), [samples(np.random.default_rng(2), "extremes", (514,))])


def signal_chain(n=100, window=50, fft_length=128, seed=0) -> bytes:
    """SignalWindow -> SignalFftAutoScale -> SignalRfft -> SignalEnergy, as micro_speech's front end
    starts (its shapes smaller); the shift and the energies are the outputs."""
    b = ModelBuilder()
    x, windowed, scaled, bits = (b.tensor((n,), "int16"), b.tensor((n,), "int16"), b.tensor((n,), "int16"),
                                 b.tensor((), "int32"))
    weights = np.random.default_rng(seed).integers(0, 4096, window).astype(np.int16)
    b.op("CUSTOM", [x, b.const(weights)], [windowed], custom_code="SignalWindow", custom_options={"shift": 12})
    b.op("CUSTOM", [windowed], [scaled, bits], custom_code="SignalFftAutoScale")
    spectrum, energy = b.tensor((fft_length + 2,), "int16"), b.tensor((fft_length // 2 + 1,), "uint32")
    b.op("CUSTOM", [scaled], [spectrum], custom_code="SignalRfft", custom_options={"T": 7, "fft_length": fft_length})
    b.op("CUSTOM", [spectrum], [energy], custom_code="SignalEnergy",
         custom_options={"start_index": 0, "end_index": fft_length // 2 + 1})
    b.inputs, b.outputs = [x], [bits, energy]
    return b.build()


@pytest.mark.parametrize("kind", KINDS)
def test_signal_chain_bit_exact(kind):
    assert_matches_tflm(signal_chain(), [samples(np.random.default_rng(4), kind, (100,))])


def _refused(model, message):
    with pytest.raises(ModelError, match=message):
        compile_model(model)


def test_window_refusals():
    _refused(window_model((10,), np.ones(4), 12), "not a whole number of windows")
    _refused(window_model((8,), np.ones(4), 32), "shift 32 is outside")
    b = ModelBuilder()
    x, w, y = b.tensor((8,), "int16"), b.tensor((8,), "int16"), b.tensor((8,), "int16")
    b.op("CUSTOM", [x, w], [y], custom_code="SignalWindow", custom_options={"shift": 1})
    b.inputs, b.outputs = [x, w], [y]
    _refused(b.build(), "weights must be a constant")
    b = ModelBuilder()
    x, y = b.tensor((8,), "int16"), b.tensor((8,), "int16")
    b.op("CUSTOM", [x, b.const(np.ones(8, np.int16))], [y], custom_code="SignalWindow", custom_options={})
    b.inputs, b.outputs = [x], [y]
    _refused(b.build(), "must hold the keys shift")
    b = ModelBuilder()
    x, y = b.tensor((8,), "int8", scale=0.1), b.tensor((8,), "int16")
    b.op("CUSTOM", [x, b.const(np.ones(8, np.int16))], [y], custom_code="SignalWindow", custom_options={"shift": 1})
    b.inputs, b.outputs = [x], [y]
    _refused(b.build(), "its input is INT8; TFLite Micro requires INT16")


def test_rfft_refusals():
    _refused(rfft_model(1, 16, 16, t=2)[0], "only the int16 FFT")
    _refused(rfft_model(1, 14, 14)[0], r"radix \[7\] stages; only radix 2, 3, 4 and 5")
    _refused(rfft_model(1, 9, 9)[0], "not an even length")
    _refused(rfft_model(1, 20, 16)[0], "do not fit fft_length 16")
    b = ModelBuilder()
    x, y = b.tensor((16,), "int16"), b.tensor((16,), "int16")
    b.op("CUSTOM", [x], [y], custom_code="SignalRfft", custom_options={"T": 7, "fft_length": 16})
    b.inputs, b.outputs = [x], [y]
    _refused(b.build(), "writes 1 rows of fft_length / 2 \\+ 1 = 9")


def test_energy_and_auto_scale_refusals():
    _refused(energy_model(4, 4, 0, 5), "bins 0 to 5 are outside")
    _refused(energy_model(4, 4, 3, 2), "bins 3 to 2 are outside")
    b = ModelBuilder()
    x, y, bits = b.tensor((2, 4), "int16"), b.tensor((2, 4), "int16"), b.tensor((), "int32")
    b.op("CUSTOM", [x], [y, bits], custom_code="SignalFftAutoScale")
    b.inputs, b.outputs = [x], [y, bits]
    _refused(b.build(), "requires a 1-D input")
