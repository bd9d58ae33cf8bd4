"""The signal library's params structs: SignalWindow, SignalFftAutoScale, SignalRfft, SignalEnergy,
and the filter bank stages (SignalFilterBank .. SignalFilterBankLog, NOISE_ESTIMATE): their option
values, and their constant tables in flash."""
from __future__ import annotations

import numpy as np

from ...state import state_layout
from ..cwriter import c_number
from .common import struct


def emit_window(step, graph, writer, name):
    """The weights written out for every sample (a window repeated over the input repeated here)."""
    p = step.params
    count = int(np.prod(p.shape, dtype=np.int64))
    weights = writer.array("int16_t", f"{name}_weights", np.tile(p.weights, count // p.weights.size))
    return "vmcu_signal_window_params", struct(count=count, shift=p.shift, weights=weights)


def emit_fft_auto_scale(step, graph, writer, name):
    p = step.params
    return "vmcu_signal_fft_auto_scale_params", struct(size=p.size, part=p.part)


def emit_rfft(step, graph, writer, name):
    p = step.params
    twiddles = writer.array("int16_t", f"{name}_twiddles", p.twiddles.reshape(-1))
    super_twiddles = writer.array("int16_t", f"{name}_super_twiddles", p.super_twiddles.reshape(-1))
    factors = list(p.factors) + [0] * (2 * MAX_FACTORS - len(p.factors))
    return "vmcu_signal_rfft_params", struct(
        fft_length=p.fft_length, input_length=p.input_length, rows=p.rows, num_factors=len(p.factors) // 2,
        factors="{" + ", ".join(map(str, factors)) + "}", twiddles=twiddles, super_twiddles=super_twiddles)


MAX_FACTORS = 8  # VMCU_RFFT_MAX_FACTORS: radix stages of fft_length / 2 <= 8192


def emit_energy(step, graph, writer, name):
    p = step.params
    return "vmcu_signal_energy_params", struct(size=p.size, start=p.start, end=p.end)


def emit_filter_bank(step, graph, writer, name):
    """Only what the written channels read: output c needs table channels c and c + 1, so the tables
    keep output_size + 1 channels and the weights up to the last one they reach. The runtime's check
    can then tie every length to the output tensor's (a mutated count cannot send it past a table)."""
    p = step.params
    n = p.output_size + 1
    starts, weight_starts, widths = (np.asarray(t[:n], dtype=np.int64) for t in
                                     (p.frequency_starts, p.weight_starts, p.widths))
    reach = max([int(s + w) for s, w in zip(weight_starts, widths) if w > 0] + [1])
    tables = {"weights": p.weights[:reach], "unweights": p.unweights[:reach], "frequency_starts": starts,
              "weight_starts": weight_starts, "widths": widths}
    arrays = {field: writer.array("int16_t", f"{name}_{field}", values) for field, values in tables.items()}
    return "vmcu_signal_filter_bank_params", struct(
        num_channels=p.output_size, input_size=p.input_size, output_size=p.output_size, weights_size=reach,
        **arrays)


def emit_square_root(step, graph, writer, name):
    p = step.params
    shift = p.constants[1]
    return "vmcu_signal_square_root_params", struct(
        channels=p.channels, shift_is_constant=int(shift is not None),
        constant_shift=c_number(int(shift.reshape(-1)[0])) if shift is not None else 0)


def emit_spectral_subtraction(step, graph, writer, name):
    p = step.params
    fields = ("smoothing", "one_minus_smoothing", "alternate_smoothing", "alternate_one_minus_smoothing",
              "min_signal_remaining", "smoothing_bits", "spectral_subtraction_bits")
    return "vmcu_signal_spectral_subtraction_params", struct(
        num_channels=p.num_channels, **{f: f"{getattr(p, f)}u" for f in fields}, clamping=int(p.clamping),
        state_offset=f"{state_layout(graph).offsets[p.state]}u")


def emit_pcan(step, graph, writer, name):
    p = step.params
    return "vmcu_signal_pcan_params", struct(
        channels=p.channels, snr_shift=p.snr_shift, gain_lut=writer.array("int16_t", f"{name}_gain_lut", p.gain_lut))


def emit_log(step, graph, writer, name):
    p = step.params
    return "vmcu_signal_filter_bank_log_params", struct(
        channels=p.channels, input_correction_bits=p.input_correction_bits, output_scale=f"{p.output_scale}u")


def emit_noise_estimate(step, graph, writer, name):
    p = step.params
    return "vmcu_signal_noise_estimate_params", struct(
        num_channels=p.num_channels, state_offset=f"{state_layout(graph).offsets[p.state]}u")
