"""vmcu_lstm_params from LstmParams: the four gates' weights in flash, zero points folded into
the biases, the requantizations, and where the two states live in the state region.

TFLite Micro adds the input's (or output state's) offset to every value before it multiplies;
the C kernel adds offset x (sum of the weight row) to the bias instead. Both are the same int32
sum modulo 2^32, so the results are the same bits, and the kernel saves an add per MAC.

vmcu_lstm_s16_params (the 16x8 LSTM) keeps the int64 biases as they are: its activations' zero
points are 0, so there is nothing to fold, and its recurrent layers have no bias.
"""
from __future__ import annotations

import numpy as np

from .common import struct


def folded_bias(weights: np.ndarray, offset: int, bias: np.ndarray | None) -> np.ndarray:
    """bias + offset x each weight row's sum, wrapped to int32 as the accumulator would be."""
    folded = offset * weights.astype(np.int64).sum(axis=1)
    if bias is not None:
        folded = folded + bias.astype(np.int64)
    return folded.astype(np.int32)  # numpy's cast keeps the low 32 bits: C's int32 wrap-around


def _state_offsets(graph, p) -> tuple[int, int]:
    from ...state import state_layout  # the state region's layout, shared with the runtime tables
    offsets = state_layout(graph).offsets
    return offsets[p.output_state], offsets[p.cell_state]


def _ints(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def emit(step, graph, writer, name):
    p = step.params
    gates = p.gates
    input_weights = writer.array("int8_t", f"{name}_input_weights",
                                 np.concatenate([g.input_weights.reshape(-1) for g in gates]))
    recurrent_weights = writer.array("int8_t", f"{name}_recurrent_weights",
                                     np.concatenate([g.recurrent_weights.reshape(-1) for g in gates]))
    input_bias = writer.array("int32_t", f"{name}_input_bias", np.concatenate(
        [folded_bias(g.input_weights, p.input_offset, g.bias) for g in gates]))
    recurrent_bias = writer.array("int32_t", f"{name}_recurrent_bias", np.concatenate(
        [folded_bias(g.recurrent_weights, p.state_offset, None) for g in gates]))
    output_state, cell_state = _state_offsets(graph, p)
    return "vmcu_lstm_params", struct(
        input_weights=input_weights, recurrent_weights=recurrent_weights, input_bias=input_bias,
        recurrent_bias=recurrent_bias,
        input_multiplier=_ints(g.input_multiplier for g in gates), input_shift=_ints(g.input_shift for g in gates),
        recurrent_multiplier=_ints(g.recurrent_multiplier for g in gates),
        recurrent_shift=_ints(g.recurrent_shift for g in gates),
        forget_cell_multiplier=p.forget_times_cell.multiplier, forget_cell_shift=p.forget_times_cell.shift,
        input_cell_multiplier=p.input_times_cell_gate.multiplier, input_cell_shift=p.input_times_cell_gate.shift,
        output_multiplier=p.output_times_tanh.multiplier, output_shift=p.output_times_tanh.shift,
        output_zero_point=p.output_times_tanh.offset, tanh_left_shift=p.tanh_left_shift, cell_clip=p.cell_clip,
        batch=p.batch, steps=p.steps, input_size=p.input_size, units=p.units, time_major=int(p.time_major),
        output_state_offset=f"{output_state}u", cell_state_offset=f"{cell_state}u")


def emit_s16(step, graph, writer, name):
    p = step.params
    gates = p.gates
    input_weights = writer.array("int8_t", f"{name}_input_weights",
                                 np.concatenate([g.input_weights.reshape(-1) for g in gates]))
    recurrent_weights = writer.array("int8_t", f"{name}_recurrent_weights",
                                     np.concatenate([g.recurrent_weights.reshape(-1) for g in gates]))
    bias = writer.array("int64_t", f"{name}_bias", np.concatenate([g.bias.astype(np.int64) for g in gates]))
    output_state, cell_state = _state_offsets(graph, p)
    return "vmcu_lstm_s16_params", struct(
        input_weights=input_weights, recurrent_weights=recurrent_weights, bias=bias,
        input_multiplier=_ints(g.input_multiplier for g in gates), input_shift=_ints(g.input_shift for g in gates),
        recurrent_multiplier=_ints(g.recurrent_multiplier for g in gates),
        recurrent_shift=_ints(g.recurrent_shift for g in gates),
        forget_cell_multiplier=p.forget_times_cell.multiplier, forget_cell_shift=p.forget_times_cell.shift,
        input_cell_multiplier=p.input_times_cell_gate.multiplier, input_cell_shift=p.input_times_cell_gate.shift,
        output_multiplier=p.output_times_tanh.multiplier, output_shift=p.output_times_tanh.shift,
        tanh_left_shift=p.tanh_left_shift, cell_clip=p.cell_clip,
        batch=p.batch, steps=p.steps, input_size=p.input_size, units=p.units, time_major=int(p.time_major),
        output_state_offset=f"{output_state}u", cell_state_offset=f"{cell_state}u")
