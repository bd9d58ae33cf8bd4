"""The params of the signal library's filter bank stages (SignalFilterBank .. SignalFilterBankLog):
their option values, and their constant tables in flash."""
from __future__ import annotations

from ...state import state_layout
from ..cwriter import c_number
from .common import struct


def emit_filter_bank(step, graph, writer, name):
    p = step.params
    tables = {field: writer.array("int16_t", f"{name}_{field}", getattr(p, field))
              for field in ("weights", "unweights", "frequency_starts", "weight_starts", "widths")}
    return "vmcu_signal_filter_bank_params", struct(
        num_channels=p.num_channels, input_size=p.input_size, output_size=p.output_size,
        weights_size=int(p.weights.size), **tables)


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
