"""The audio front end's tail as TFLite Micro's micro_speech preprocessor runs it, from the power
spectrum on: SignalFilterBank -> SignalFilterBankSquareRoot -> SignalFilterBankSpectralSubtraction
(its noise estimate into SignalPCAN) -> SignalFilterBankLog -> CAST int32 -> MUL 256 -> ADD -> DIV
666 -> ADD -128 -> MINIMUM / MAXIMUM -> CAST int8, through the whole pipeline (planner, pool bytes,
state region) against TFLite Micro over sequences of runs; and each stage alone through the
pipeline, its hypothesis cases as in test_op_signal_*.py."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_sequence_matches_tflm
from tests.ops.signal_harness import single_op, wide_uint
from tests.ops.test_op_signal_filter_bank import filter_bank_model
from tests.ops.test_op_signal_noise import log_model, pcan_model, spectral_subtraction_model, \
    spectral_subtraction_options
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.state import state_layout

SPECTRAL = dict(smoothing=655, one_minus_smoothing=(1 << 14) - 655, alternate_smoothing=655,
                alternate_one_minus_smoothing=(1 << 14) - 655, min_signal_remaining=819, smoothing_bits=10,
                spectral_subtraction_bits=14, clamping=False)


def mel_tables(channels: int, bins: int) -> dict[str, np.ndarray]:
    """Overlapping triangles over the spectrum, as the front end's filter bank tables are laid out."""
    edges = np.linspace(1, bins - 1, channels + 2).astype(int)
    starts, widths, weights, unweights = [], [], [], []
    for i in range(channels + 1):
        lo, hi = int(edges[i]), max(int(edges[i + 1]), int(edges[i]) + 1)
        starts.append(lo)
        widths.append(hi - lo)
        rising = np.linspace(0, 4095, hi - lo, endpoint=False).astype(np.int16)
        weights += list(rising)
        unweights += list(4095 - rising)
    weight_starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    return dict(weights=np.array(weights, np.int16), unweights=np.array(unweights, np.int16),
                starts=np.array(starts, np.int16), weight_starts=weight_starts.astype(np.int16),
                widths=np.array(widths, np.int16))


def front_end_tail(channels: int = 8, bins: int = 33, shift_input: bool = False, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    spectrum = b.tensor([bins], "uint32")
    tables = mel_tables(channels, bins)
    energies = b.tensor([channels], "uint64")
    b.op("CUSTOM", [spectrum] + [b.const(tables[k]) for k in ("weights", "unweights", "starts", "weight_starts",
                                                              "widths")],
         [energies], custom_code="SignalFilterBank", custom_options={"num_channels": channels})
    shift = b.tensor([], "int32") if shift_input else b.const(np.array(3, np.int32))
    roots = b.tensor([channels], "uint32")
    b.op("CUSTOM", [energies, shift], [roots], custom_code="SignalFilterBankSquareRoot", custom_options={})
    cleaned, noise = b.tensor([channels], "uint32"), b.tensor([channels], "uint32")
    b.op("CUSTOM", [roots], [cleaned, noise], custom_code="SignalFilterBankSpectralSubtraction",
         custom_options={"num_channels": channels, **SPECTRAL})
    lut = rng.integers(0, 3000, size=125).astype(np.int16)
    gained = b.tensor([channels], "uint32")
    b.op("CUSTOM", [cleaned, noise, b.const(lut)], [gained], custom_code="SignalPCAN", custom_options={"snr_shift": 6})
    logs = b.tensor([channels], "int16")
    b.op("CUSTOM", [gained], [logs], custom_code="SignalFilterBankLog",
         custom_options={"input_correction_bits": 3, "output_scale": 1 << 6})
    t = b.tensor([channels], "int32")
    b.op("CAST", [logs], [t])
    for kind, value in (("MUL", 256), ("ADD", 333), ("DIV", 666), ("ADD", -128)):
        y = b.tensor([channels], "int32")
        b.op(kind, [t, b.const(np.array([value], np.int32))], [y], fused_activation_function=0)
        t = y
    for kind, value in (("MINIMUM", 127), ("MAXIMUM", -128)):
        y = b.tensor([channels], "int32")
        b.op(kind, [t, b.const(np.array(value, np.int32))], [y])
        t = y
    features = b.tensor([channels], "int8", scale=1.0)
    b.op("CAST", [t], [features])
    b.inputs = [spectrum, shift] if shift_input else [spectrum]
    b.outputs = [features, noise]
    return b.build()


@settings(max_examples=10, deadline=None)
@given(channels=st.integers(2, 16), shift=st.integers(0, 31), seed=st.integers(0, 2**31))
def test_front_end_tail_over_runs(channels, shift, seed):
    rng = np.random.default_rng(seed)
    model = front_end_tail(channels, 33, shift_input=True, seed=seed)
    runs = [[wide_uint(rng, 33, int(rng.integers(8, 33)), np.uint32), np.array(shift, np.int32)] for _ in range(4)]
    assert_sequence_matches_tflm(model, runs)


def test_noise_estimate_is_state_and_a_step_copies_it():
    program = compile_model(front_end_tail())
    kinds = [s.kernel for s in program.steps]
    assert kinds.count("NOISE_ESTIMATE") == 1 and kinds.count("INT32_BINARY") == 6
    layout = state_layout(program.graph)  # the tag, then the 8 channels' uint32 estimate
    assert layout.bytes == 4 + 8 * 4 and layout.initial == ((4, 32, 0),)


@settings(max_examples=20, deadline=None)
@given(channels=st.integers(1, 12), bins=st.integers(1, 40), seed=st.integers(0, 2**31))
def test_filter_bank_through_the_pipeline(channels, bins, seed):
    rng = np.random.default_rng(seed)
    assert_sequence_matches_tflm(filter_bank_model(rng, channels, bins), [[wide_uint(rng, bins, 32, np.uint32)]])


@settings(max_examples=20, deadline=None)
@given(channels=st.integers(1, 41), options=spectral_subtraction_options(), seed=st.integers(0, 2**31))
def test_spectral_subtraction_through_the_pipeline(channels, options, seed):
    """Both outputs (the estimate copied from the state region) over a sequence of runs."""
    rng = np.random.default_rng(seed)
    model = spectral_subtraction_model(channels, options)
    assert_sequence_matches_tflm(model, [[wide_uint(rng, channels, 32, np.uint32)] for _ in range(4)])


@settings(max_examples=20, deadline=None)
@given(channels=st.integers(1, 41), shift=st.integers(0, 31), correction=st.integers(0, 31),
       scale=st.integers(-(1 << 31), (1 << 31) - 1), snr_shift=st.integers(0, 63), seed=st.integers(0, 2**31))
def test_square_root_pcan_log_through_the_pipeline(channels, shift, correction, scale, snr_shift, seed):
    rng = np.random.default_rng(seed)
    root = single_op("SignalFilterBankSquareRoot", [((channels,), "uint64"), ((), "int32")],
                     [((channels,), "uint32")], {})
    assert_sequence_matches_tflm(root, [[wide_uint(rng, channels, 64, np.uint64), np.array(shift, np.int32)]])
    lut = rng.integers(-(1 << 15), 1 << 15, size=125).astype(np.int16)
    assert_sequence_matches_tflm(pcan_model(channels, lut, snr_shift),
                                 [[wide_uint(rng, channels, 32, np.uint32), wide_uint(rng, channels, 32, np.uint32)]])
    assert_sequence_matches_tflm(log_model(channels, correction, scale), [[wide_uint(rng, channels, 32, np.uint32)]])


def test_front_end_tail_in_sanitized_c(tmp_path):
    """The C runtime built with AddressSanitizer and UBSan over a sequence of runs."""
    import shutil

    import pytest

    from vmcu_tflite.validate.run import validate
    from vmcu_tflite.validate.targets import SANITIZED_HOST

    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed")
    path = tmp_path / "audio_tail.tflite"
    path.write_bytes(front_end_tail(channels=12, bins=40, seed=3))
    for planner in ("vmcu", "tensor"):
        v = validate(path, SANITIZED_HOST, seed=7, planner=planner)
        assert (v.status, v.matches_reference, v.matches_tflm) == (0, True, True), planner
