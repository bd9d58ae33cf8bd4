"""SignalFilterBankSpectralSubtraction (over sequences of runs: its noise estimate is state),
SignalPCAN and SignalFilterBankLog: the reference kernels against TFLite Micro, and the refusals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.ops.signal_harness import assert_reference_matches_tflm, single_op, tflm_refuses, wide_uint
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model

INT32 = st.integers(-(1 << 31), (1 << 31) - 1)


def spectral_subtraction_model(channels: int, options: dict, noise_channels: int | None = None) -> bytes:
    return single_op("SignalFilterBankSpectralSubtraction", [((channels,), "uint32")],
                     [((channels,), "uint32"), ((noise_channels or channels,), "uint32")],
                     {"num_channels": channels, **options})


@st.composite
def spectral_subtraction_options(draw):
    """The front end's kind of coefficients (Q14 smoothing) and any int32 (a negative one is a
    large uint32), every shift a uint32 and a uint64 take."""
    small = st.integers(0, 1 << 14)
    pick = st.one_of(small, INT32)
    return dict(smoothing=draw(pick), one_minus_smoothing=draw(pick), alternate_smoothing=draw(pick),
                alternate_one_minus_smoothing=draw(pick), min_signal_remaining=draw(pick),
                smoothing_bits=draw(st.one_of(st.integers(0, 12), st.integers(0, 31))),
                spectral_subtraction_bits=draw(st.one_of(st.integers(10, 16), st.integers(0, 63))),
                clamping=draw(st.booleans()))


@settings(max_examples=40, deadline=None)
@given(channels=st.integers(1, 41), options=spectral_subtraction_options(), runs=st.integers(2, 5),
       bits=st.sampled_from([12, 20, 32]), seed=st.integers(0, 2**31))
def test_spectral_subtraction_matches_tflm_over_runs(channels, options, runs, bits, seed):
    rng = np.random.default_rng(seed)
    model = spectral_subtraction_model(channels, options)
    assert_reference_matches_tflm(model, [[wide_uint(rng, channels, bits, np.uint32)] for _ in range(runs)])


def test_spectral_subtraction_estimate_follows_a_steady_signal():
    """The front end's coefficients: the estimate climbs toward a constant input run after run."""
    options = dict(smoothing=655, one_minus_smoothing=(1 << 14) - 655, alternate_smoothing=655,
                   alternate_one_minus_smoothing=(1 << 14) - 655, min_signal_remaining=819, smoothing_bits=10,
                   spectral_subtraction_bits=14, clamping=False)
    model = spectral_subtraction_model(4, options)
    ours = assert_reference_matches_tflm(model, [[np.full(4, 5000, np.uint32)]] * 6)
    estimates = [int(run[1][0]) for run in ours]
    assert estimates == sorted(estimates) and estimates[0] < estimates[-1]


@pytest.mark.parametrize("change, message", [
    (dict(smoothing_bits=32), "smoothing_bits 32"), (dict(spectral_subtraction_bits=64), "64 is outside"),
    (dict(spectral_subtraction_bits=-1), "-1 is outside"), (dict(clamping=1), "clamping must be a boolean"),
])
def test_spectral_subtraction_refuses_undefined_shifts_and_bad_options(change, message):
    options = dict(smoothing=1, one_minus_smoothing=1, alternate_smoothing=1, alternate_one_minus_smoothing=1,
                   min_signal_remaining=1, smoothing_bits=1, spectral_subtraction_bits=1, clamping=False)
    graph = parse_model(spectral_subtraction_model(3, {**options, **change}))
    with pytest.raises(ModelError, match=message):
        prepare(graph, graph.ops[0])


def test_spectral_subtraction_refuses_a_missing_option_and_a_short_estimate():
    graph = parse_model(spectral_subtraction_model(3, dict(smoothing=1)))
    with pytest.raises(ModelError, match="by position"):
        prepare(graph, graph.ops[0])
    options = dict(smoothing=1, one_minus_smoothing=1, alternate_smoothing=1, alternate_one_minus_smoothing=1,
                   min_signal_remaining=1, smoothing_bits=1, spectral_subtraction_bits=1, clamping=False)
    graph = parse_model(spectral_subtraction_model(3, options, noise_channels=2))
    with pytest.raises(ModelError, match="noise estimate holds 2"):
        prepare(graph, graph.ops[0])


def pcan_model(channels: int, lut: np.ndarray, snr_shift: int) -> bytes:
    return single_op("SignalPCAN", [((channels,), "uint32"), ((channels,), "uint32"), (lut,)],
                     [((channels,), "uint32")], {"snr_shift": snr_shift})


@settings(max_examples=40, deadline=None)
@given(channels=st.integers(1, 41), snr_shift=st.one_of(st.just(6), st.integers(0, 63)), extra=st.integers(0, 3),
       small_lut=st.booleans(), bits=st.sampled_from([3, 16, 32]), seed=st.integers(0, 2**31))
def test_pcan_matches_tflm(channels, snr_shift, extra, small_lut, bits, seed):
    """Any gain table (negative gains wrap to large uint32s), estimates in every segment, any shift."""
    rng = np.random.default_rng(seed)
    bound = 1 << (12 if small_lut else 15)
    lut = rng.integers(-bound if not small_lut else 0, bound, size=125 + extra).astype(np.int16)
    model = pcan_model(channels, lut, snr_shift)
    runs = [[wide_uint(rng, channels, 32, np.uint32), wide_uint(rng, channels, bits, np.uint32)] for _ in range(2)]
    assert_reference_matches_tflm(model, runs)


def test_pcan_refuses_a_short_table_and_undefined_shift():
    for lut, shift, message in ((np.zeros(124, np.int16), 6, "reads up to 125"), (np.zeros(125, np.int16), 64,
                                                                                  "snr_shift 64")):
        graph = parse_model(pcan_model(3, lut, shift))
        with pytest.raises(ModelError, match=message):
            prepare(graph, graph.ops[0])


def test_pcan_refuses_the_types_tflm_refuses():
    model = single_op("SignalPCAN", [((3,), "uint32"), ((3,), "uint32"), (np.zeros(125, np.int32),)],
                      [((3,), "uint32")], {"snr_shift": 6})
    assert tflm_refuses(model, [np.zeros(3, np.uint32)] * 2)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="gain lookup table must be int16"):
        prepare(graph, graph.ops[0])


def log_model(channels: int, correction: int, scale: int, out_type: str = "int16") -> bytes:
    return single_op("SignalFilterBankLog", [((channels,), "uint32")], [((channels,), out_type)],
                     {"input_correction_bits": correction, "output_scale": scale})


@settings(max_examples=40, deadline=None)
@given(channels=st.integers(1, 41), correction=st.one_of(st.integers(0, 4), st.integers(0, 31)),
       scale=st.one_of(st.integers(1, 1 << 10), INT32), bits=st.sampled_from([2, 17, 32]), seed=st.integers(0, 2**31))
def test_log_matches_tflm(channels, correction, scale, bits, seed):
    """Every input magnitude (0 and 1 give 0), the shift wrapping, a scale whose product wraps in
    uint32 and one large enough to cap at 32767."""
    rng = np.random.default_rng(seed)
    model = log_model(channels, correction, scale)
    assert_reference_matches_tflm(model, [[wide_uint(rng, channels, bits, np.uint32)]])


def test_log_every_segment_of_the_correction_table():
    """Inputs at the start and middle of each of the 128 segments of [2**16, 2**17): every table
    entry and its neighbour are read."""
    x = np.array([(1 << 16) + (s << 9) + d for s in range(128) for d in (0, 256, 511)], dtype=np.uint32)
    assert_reference_matches_tflm(log_model(x.size, 0, 1 << 16), [[x]])


def test_log_refuses():
    graph = parse_model(log_model(3, 32, 1))
    with pytest.raises(ModelError, match="input_correction_bits 32"):
        prepare(graph, graph.ops[0])
    model = log_model(3, 0, 1, out_type="int32")
    assert tflm_refuses(model, [np.zeros(3, np.uint32)])
    with pytest.raises(ModelError, match="int32 activations are not supported"):  # the reader's type blocker
        parse_model(model)
