"""micro_speech's audio preprocessor as its flatbuffer: TFLite Micro's audio_preprocessor.py with its
default FeatureParams, converted with allow_custom_ops, written directly (TensorFlow cannot make the
signal library's ops without TFLite Micro's TF op libraries).

The tables are computed as tflite_micro's Python op wrappers compute them: the Hann window
(window_op.hann_window_weights, float64, rounded), the mel filter bank's weights, unweights and
channel tables (filter_bank_ops, in float32 with log1pf as its FreqToMel wrapper does), the spectral
subtraction's fixed-point smoothing options, and PCAN's gain lookup table (its
wide_dynamic_func_lut wrapper, float32 with powf). Only numpy is needed, so tests import it too.
"""
from __future__ import annotations

import numpy as np

SAMPLE_RATE = 16000
WINDOW_SAMPLES = 480  # 30 ms
WINDOW_SHIFT = 12
FFT_LENGTH, FFT_BITS = 512, 9
CHANNELS = 40
LOWER_HZ, UPPER_HZ = 125.0, 7500.0
WEIGHT_BITS = 12  # FILTER_BANK_WEIGHT_SCALING_BITS
ALIGNMENT, BLOCK_SIZE = 4, 4  # FeatureParams: filter_bank_alignment, filter_bank_channel_block_size
SPECTRAL_SUBTRACTION_BITS, SMOOTHING_BITS = 14, 10
EVEN_SMOOTHING, ODD_SMOOTHING, MIN_SIGNAL_REMAINING = 0.025, 0.06, 0.05
PCAN_STRENGTH, PCAN_OFFSET, PCAN_GAIN_BITS, PCAN_SMOOTHING_BITS, PCAN_SNR_BITS = 0.95, 80.0, 21, 10, 12
POST_SCALING_BITS = 6
CORRECTION_BITS = FFT_BITS - WEIGHT_BITS // 2  # 3


def hann_window_weights(length: int = WINDOW_SAMPLES, shift: int = WINDOW_SHIFT) -> np.ndarray:
    arg = np.pi * 2 / length
    index = np.arange(length)
    return np.round((0.5 - 0.5 * np.cos(arg * (index + 0.5))) * 2 ** shift).astype(np.int16)


def freq_to_mel(freq) -> np.float32:
    """TFLite Micro's FreqToMel: 1127 log1pf(freq / 700) in float (its argument rounded to float)."""
    return np.float32(1127.0) * np.log1p(np.float32(freq) / np.float32(700.0))


def _center_mels(count: int, lower: float, upper: float) -> np.ndarray:
    mel_lower, mel_upper = np.float32(freq_to_mel(lower)), np.float32(freq_to_mel(upper))
    spacing = (mel_upper - mel_lower) / np.float32(count)
    return mel_lower + spacing * np.arange(1, count + 1, dtype=np.float32)


def filter_bank_tables(spectrum_size: int, alignment: int = ALIGNMENT, block: int = BLOCK_SIZE):
    """(start index, end index, weights, unweights, channel frequency starts, channel weight starts,
    channel widths) as filter_bank_ops._init_filter_bank_weights computes them (num_channels + 1 channels)."""
    index_alignment = 1 if alignment < 2 else alignment // 2
    n = CHANNELS + 1
    freq_starts, weight_starts, widths = (np.zeros(n, np.int16) for _ in range(3))
    actual_starts, actual_widths = np.zeros(n, np.int64), np.zeros(n, np.int64)
    centers = _center_mels(n, LOWER_HZ, UPPER_HZ)
    hz_per_bin = (SAMPLE_RATE / 2) / (spectrum_size - 1)
    start_index = round(1 + LOWER_HZ / hz_per_bin)
    chan_start, weight_index, needs_zeros = start_index, 0, False
    for chan in range(n):
        freq_index = chan_start
        while freq_to_mel(freq_index * hz_per_bin) <= centers[chan]:
            freq_index += 1
        width = freq_index - chan_start
        actual_starts[chan], actual_widths[chan] = chan_start, width
        if width == 0:  # a channel no bin reaches: one block of zero weights, placed first
            freq_starts[chan], weight_starts[chan], widths[chan] = 0, 0, block
            if not needs_zeros:
                needs_zeros = True
                weight_starts[:chan] += block
                weight_index += block
        else:
            aligned = chan_start // index_alignment * index_alignment
            padded = ((chan_start - aligned + width - 1) // block + 1) * block
            freq_starts[chan], weight_starts[chan], widths[chan] = aligned, weight_index, padded
            weight_index += padded
        chan_start = freq_index
    weights, unweights = np.zeros(weight_index, np.int16), np.zeros(weight_index, np.int16)
    end_index = 0
    mel_low = freq_to_mel(LOWER_HZ)
    for chan in range(n):
        frequency = int(actual_starts[chan])
        offset = frequency - int(freq_starts[chan])
        below = mel_low if chan == 0 else centers[chan - 1]
        for j in range(int(actual_widths[chan])):
            num = np.float32(centers[chan] - freq_to_mel(frequency * hz_per_bin))
            den = np.float32(centers[chan] - below)
            weight = np.float32(num / den)
            at = int(weight_starts[chan]) + offset + j
            weights[at] = int(weight * np.float32(1 << WEIGHT_BITS))
            unweights[at] = int((np.float32(1) - weight) * np.float32(1 << WEIGHT_BITS))
            frequency += 1
        end_index = max(end_index, frequency)
    return start_index, end_index, weights, unweights, freq_starts, weight_starts, widths


def pcan_gain_lut(strength=PCAN_STRENGTH, offset=PCAN_OFFSET, gain_bits=PCAN_GAIN_BITS,
                  input_bits=PCAN_SMOOTHING_BITS - CORRECTION_BITS) -> np.ndarray:
    """The wrapper's WideDynamicFuncLut: 125 int16, gain(x) = 2^gain_bits (x / 2^input_bits + offset)^-strength
    at 0, 1 and per octave a quadratic through x0, 1.5 x0 and 2 x0, all in float."""
    def gain(x: int) -> int:
        x_float = np.float32(x) / np.float32(1 << input_bits)
        g = np.float32(1 << gain_bits) * np.power(np.float32(x_float + np.float32(offset)), np.float32(-strength))
        return 32767 if g > 32767 else int(np.float32(g + np.float32(0.5)))

    lut = [0] * 126
    lut[0], lut[1] = gain(0), gain(1)
    for interval in range(2, 33):
        x0 = 1 << (interval - 1)
        x1 = x0 + (x0 >> 1)
        x2 = x0 + (x0 - 1) if interval == 32 else 2 * x0
        y0, y1, y2 = gain(x0), gain(x1), gain(x2)
        a1 = 4 * (y1 - y0) - (y2 - y0)
        a2 = (y2 - y0) - a1
        base = 4 * interval - 6
        lut[base:base + 4] = [y0, a1, a2, 0]
    return np.array([(v + 32768) % 65536 - 32768 for v in lut[:125]], dtype=np.int16)


def spectral_subtraction_options() -> dict:
    bits = SPECTRAL_SUBTRACTION_BITS
    smoothing, alternate = int(EVEN_SMOOTHING * (1 << bits)), int(ODD_SMOOTHING * (1 << bits))
    return {"num_channels": CHANNELS, "smoothing": smoothing, "one_minus_smoothing": (1 << bits) - smoothing,
            "alternate_smoothing": alternate, "alternate_one_minus_smoothing": (1 << bits) - alternate,
            "smoothing_bits": SMOOTHING_BITS, "min_signal_remaining": int(MIN_SIGNAL_REMAINING * (1 << bits)),
            "clamping": False, "spectral_subtraction_bits": bits}


def audio_preprocessor(builder_class) -> bytes:
    """The converted model: int16 [1, 480] samples in, int8 [40] features out (tests.tflite_builder's
    ModelBuilder as `builder_class`)."""
    b = builder_class()
    spectrum_size = FFT_LENGTH // 2 + 1
    start, end, weights, unweights, freq_starts, weight_starts, widths = filter_bank_tables(spectrum_size)

    def t(shape, dtype, name):
        return b.tensor(shape, dtype, name=name)

    audio = t((1, WINDOW_SAMPLES), "int16", "audio_frame")
    windowed = t((1, WINDOW_SAMPLES), "int16", "window")
    b.op("CUSTOM", [audio, b.const(hann_window_weights())], [windowed], custom_code="SignalWindow",
         custom_options={"shift": WINDOW_SHIFT})
    flat = t((WINDOW_SAMPLES,), "int16", "window_flat")
    b.op("RESHAPE", [windowed, b.const(np.array([-1], np.int32))], [flat], new_shape=[-1])
    scaled, shift = t((WINDOW_SAMPLES,), "int16", "fft_auto_scale"), t((), "int32", "fft_auto_scale_shift")
    b.op("CUSTOM", [flat], [scaled, shift], custom_code="SignalFftAutoScale", custom_options={})
    spectrum = t((FFT_LENGTH + 2,), "int16", "rfft")
    b.op("CUSTOM", [scaled], [spectrum], custom_code="SignalRfft", custom_options={"T": 7, "fft_length": FFT_LENGTH})
    energy = t((spectrum_size,), "uint32", "energy")
    b.op("CUSTOM", [spectrum], [energy], custom_code="SignalEnergy",
         custom_options={"end_index": end, "start_index": start})
    wide = t((spectrum_size,), "int32", "energy_int32")
    b.op("CAST", [energy], [wide], in_data_type=16, out_data_type=2)  # UINT32 -> INT32 (TensorType values)
    sliced = t((end - start,), "int32", "energy_slice")
    b.op("STRIDED_SLICE", [wide, *(b.const(np.array([v], np.int32)) for v in (start, end, 1))], [sliced])
    padded = t((spectrum_size,), "int32", "energy_padded")
    head, tail = b.const(np.zeros(start, np.int32)), b.const(np.zeros(spectrum_size - end, np.int32))
    b.op("CONCATENATION", [head, sliced, tail], [padded], axis=0)
    energies = t((spectrum_size,), "uint32", "energy_uint32")
    b.op("CAST", [padded], [energies], in_data_type=2, out_data_type=16)
    banks = t((CHANNELS,), "uint64", "filter_bank")
    b.op("CUSTOM", [energies, *(b.const(v) for v in (weights, unweights, freq_starts, weight_starts, widths))],
         [banks], custom_code="SignalFilterBank", custom_options={"num_channels": CHANNELS})
    roots = t((CHANNELS,), "uint32", "filter_bank_square_root")
    b.op("CUSTOM", [banks, shift], [roots], custom_code="SignalFilterBankSquareRoot", custom_options={})
    cleaned, noise = t((CHANNELS,), "uint32", "spectral_subtraction"), t((CHANNELS,), "uint32", "noise_estimate")
    b.op("CUSTOM", [roots], [cleaned, noise], custom_code="SignalFilterBankSpectralSubtraction",
         custom_options=spectral_subtraction_options())
    gained = t((CHANNELS,), "uint32", "pcan")
    b.op("CUSTOM", [cleaned, noise, b.const(pcan_gain_lut())], [gained], custom_code="SignalPCAN",
         custom_options={"snr_shift": 6})
    logs = t((CHANNELS,), "int16", "filter_bank_log")
    b.op("CUSTOM", [gained], [logs], custom_code="SignalFilterBankLog",
         custom_options={"input_correction_bits": CORRECTION_BITS, "output_scale": 1 << POST_SCALING_BITS})
    x = t((CHANNELS,), "int32", "features_int32")
    b.op("CAST", [logs], [x], in_data_type=7, out_data_type=2)
    value_div = int(25.6 * 26 + 0.5)  # 666
    for kind, constant, name in (("MUL", 256, "times_256"), ("ADD", value_div // 2, "plus_333"),
                                 ("DIV", value_div, "over_666"), ("ADD", -128, "minus_128"),
                                 ("MINIMUM", 127, "clip_high"), ("MAXIMUM", -128, "clip_low")):
        y = t((CHANNELS,), "int32", name)
        b.op(kind, [x, b.const(np.array(constant, np.int32))], [y])
        x = y
    features = t((CHANNELS,), "int8", "features")
    b.op("CAST", [x], [features], in_data_type=2, out_data_type=9)
    b.inputs, b.outputs = [audio], [features]
    return b.build()
