"""The signal library's params structs: SignalWindow, SignalFftAutoScale, SignalRfft, SignalEnergy."""
from __future__ import annotations

import numpy as np

from .common import struct


def emit_window(step, graph, writer, name):
    p = step.params
    weights = writer.array("int16_t", f"{name}_weights", p.weights)
    count = int(np.prod(p.shape, dtype=np.int64))
    return "vmcu_signal_window_params", struct(count=count, size=p.weights.size, shift=p.shift, weights=weights)


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
