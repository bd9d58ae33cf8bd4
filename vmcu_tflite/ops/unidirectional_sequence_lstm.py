"""UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations x int8 weights -> int16 cell: TFLite Micro's
integer LSTM (the Keras LSTM: four gates, no peephole, projection or layer norm).

At each time step, for every batch row, TFLite Micro computes each gate as two int8 fully
connected layers, one over the input row (with the gate's bias), one over the previous output
state (no bias), each requantized to int16 at the fixed scale 2^-12 and added with int16
saturation; then sigmoid (input, forget, output gates) or tanh (cell gate) on TFLite's int16
table, whose results are at scale 2^-15. The new cell state is forget x cell + input x cell gate
(two int16 multiplications back to the cell state's scale, a saturating add, an optional clip);
the new output state is tanh(cell) x output gate, requantized to the output state's int8
quantization, and is also the step's output row.

The 16x8 form (int16 input, output and output state with zero point 0, int8 weights, int64 gate
biases) is TFLite Micro's same evaluation with int16 activations: each fully connected layer sums
in int64 and takes the 64-bit requantization, and the output state is requantized to int16. Its
prepare hands it to the UNIDIRECTIONAL_SEQUENCE_LSTM_S16 step kind (`unidirectional_sequence_lstm_s16`).

TFLite Micro ignores the intermediate tensors the converter records and the output tensor's
quantization (it copies the output state's bytes): only the input's, the weights', the output
state's and the cell state's quantization take part. Both states are variable tensors kept
between invocations (`vmcu_tflite.state`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..codegen.params.lstm import emit
from ..graph import Graph, Op, Tensor
from .common import output, output_multiplier, require, tensor
from .spec import OpSpec

KIND = "UNIDIRECTIONAL_SEQUENCE_LSTM"

# TFLite's input positions (lstm_shared.h).
INPUT = 0
INPUT_WEIGHTS = (1, 2, 3, 4)  # input-to-{input, forget, cell, output} gate
RECURRENT_WEIGHTS = (5, 6, 7, 8)
PEEPHOLE = (9, 10, 11)
BIASES = (12, 13, 14, 15)
PROJECTION = (16, 17)
OUTPUT_STATE, CELL_STATE = 18, 19
LAYER_NORM = (20, 21, 22, 23)
GATES = ("input", "forget", "cell", "output")

GATE_INPUT_SCALE = 2.0 ** -12  # the fully connected outputs, the activations' input (Q3.12)
GATE_OUTPUT_SCALE = 2.0 ** -15  # the activations' output (Q0.15)
ACT_TANH = 4  # ActivationFunctionType TANH: the only cell gate activation TFLite Micro evaluates
MAX_TANH_LEFT_SHIFT = 14  # tanh(cell) multiplies the int16 cell by 3 << shift in int32
WIDE_MAX_SHIFT = 14  # the 64-bit requantization shifts right by 15 - shift: at least 1
WIDE_MAX_BIAS = 1 << 46  # |int64 bias| + the sums stay far below 2^63 / 2^15 (the Q15 multiplier's product)


@dataclass(frozen=True, eq=False)
class Gate:
    """One gate's two fully connected layers, requantized to int16 at scale 2^-12."""

    input_weights: np.ndarray  # [units, input] int8
    recurrent_weights: np.ndarray  # [units, units] int8
    bias: np.ndarray  # [units] int32 (int64 in 16x8), added to the input layer's accumulator
    input_multiplier: int
    input_shift: int
    recurrent_multiplier: int
    recurrent_shift: int


@dataclass(frozen=True)
class Rescale:
    """An int16 x int16 product requantized by multiplier/shift, plus an offset, then clamped."""

    multiplier: int
    shift: int
    offset: int
    low: int
    high: int


@dataclass(frozen=True, eq=False)
class LstmParams:
    time_major: bool  # input [T, B, I] (else [B, T, I]); the output follows
    batch: int
    steps: int
    input_size: int
    units: int
    input_offset: int  # -input zero point
    state_offset: int  # -output state zero point (the recurrent layers' input offset)
    gates: tuple[Gate, Gate, Gate, Gate]  # input, forget, cell, output (TFLite's tensor order)
    forget_times_cell: Rescale  # forget gate x cell state -> cell state
    input_times_cell_gate: Rescale  # input gate x cell gate -> cell state
    output_times_tanh: Rescale  # output gate x tanh(cell) -> output state (int8, its zero point)
    cell_power: int  # cell state scale = 2^cell_power (log2 rounded, as TFLite Micro's CheckedLog2)
    cell_clip: int  # |cell| limit in cell-state units (0 clips to 0); -1: no clip
    output_state: int  # tensor index of the int8 output (hidden) state
    cell_state: int  # tensor index of the int16 cell state
    output_shape: tuple[int, ...]
    wide: bool = False  # 16x8: int16 activations, int64 sums and biases, the 64-bit requantization
    step_kind: str = KIND

    @property
    def tanh_left_shift(self) -> int:
        """tanh(cell)'s input shift: the cell's Q(-power) brought to the table's Q3.12."""
        return 12 + self.cell_power


def _per_tensor(t: Tensor) -> bool:
    return t.quant is not None and not t.quant.per_channel


def _weights(graph: Graph, op: Op, position: int, rows: int, columns: int, what: str) -> Tensor:
    t = tensor(graph, op, position)
    require(t is not None, op, f"the {what} weights (input {position}) are missing: TFLite Micro runs no CIFG LSTM")
    require(t.is_constant and t.dtype == "int8", op, f"the {what} weights (input {position}) must be constant int8 "
                                                     "(float and hybrid LSTMs are not supported)")
    require(t.shape == (rows, columns), op, f"the {what} weights (input {position}) have shape {t.shape}, "
                                            f"not [{rows}, {columns}]")
    require(_per_tensor(t), op, f"the {what} weights (input {position}) must have one scale: TFLite Micro's "
                                "LSTM takes no per-channel weights")
    require(t.quant.zero_point[0] == 0, op, f"the {what} weights (input {position}) must have zero point 0")
    require(t.quant.scale[0] >= 0, op, f"the {what} weights (input {position}) have a negative scale")
    return t


def _bias(graph: Graph, op: Op, position: int, units: int, what: str, dtype: str) -> np.ndarray:
    t = tensor(graph, op, position)
    require(t is not None, op, f"the {what} gate bias (input {position}) is missing")
    require(t.is_constant and t.dtype == dtype, op, f"the {what} gate bias (input {position}) must be constant "
                                                    f"{dtype} (has {t.dtype})")
    require(t.num_elements == units and len(t.shape) == 1, op,
            f"the {what} gate bias (input {position}) has shape {t.shape}, not [{units}]")
    if dtype == "int32":
        return t.data.reshape(-1).astype(np.int32)
    bias = t.data.reshape(-1).astype(np.int64)
    require(bool(np.all(np.abs(bias) <= WIDE_MAX_BIAS)), op,
            f"the {what} gate bias (input {position}) exceeds +-2^46, beyond what the 64-bit requantization takes")
    return bias


def _gate_multiplier(op: Op, activation: Tensor, weights: Tensor, wide: bool) -> tuple[int, int]:
    """activation scale x weight scale / 2^-12 in double (GetQuantizedConvolutionMultipler)."""
    multiplier, shift = output_multiplier(op, activation.scale * weights.quant.scale[0] / GATE_INPUT_SCALE)
    require(not wide or shift <= WIDE_MAX_SHIFT, op,
            f"a gate's rescale needs a left shift of {shift}; the 16x8 int64 form applies at most {WIDE_MAX_SHIFT}")
    return multiplier, shift


def _rescale(op: Op, real: float, offset: int, low: int, high: int) -> Rescale:
    multiplier, shift = output_multiplier(op, real)
    return Rescale(multiplier=multiplier, shift=shift, offset=offset, low=low, high=high)


def checked_log2(x: float) -> int:
    """TFLite's CheckedLog2's result: log2(x) in float32 (ln x / ln 2), rounded half away from zero.
    TFLite Micro uses it whether or not the cell scale is a power of two."""
    value = np.float32(np.log(np.float32(x))) * (np.float32(1.0) / np.float32(np.log(np.float32(2.0))))
    return int(math.copysign(math.floor(abs(float(value)) + 0.5), float(value)))


def _absent(graph: Graph, op: Op, positions: tuple[int, ...], what: str) -> None:
    present = [p for p in positions if tensor(graph, op, p) is not None]
    require(not present, op, f"{what} (inputs {', '.join(map(str, present))}) is not supported "
                             "(TFLite Micro runs the standard LSTM only)")


def _state(graph: Graph, op: Op, position: int, dtype: str, elements: int, what: str) -> Tensor:
    t = tensor(graph, op, position)
    require(t is not None and t.is_variable, op, f"the {what} (input {position}) must be a variable tensor")
    require(t.dtype == dtype and _per_tensor(t), op, f"the {what} (input {position}) must be {dtype} with one scale "
                                                     f"(has {t.dtype})")
    require(t.num_elements == elements, op, f"the {what} (input {position}) has {t.num_elements} values, "
                                            f"not batch x units = {elements}")
    return t


def prepare(graph: Graph, op: Op) -> LstmParams:
    require(len(op.inputs) == 24 and len(op.outputs) == 1, op, "expects 24 inputs and 1 output")
    x, out = tensor(graph, op, INPUT), output(graph, op)
    require(x is not None and x.dtype in ("int8", "int16") and out.dtype == x.dtype, op,
            f"{x.dtype if x is not None else None} -> {out.dtype} is not supported (int8 or int16 activations)")
    require(_per_tensor(x) and _per_tensor(out), op, "the input and the output need one scale each (TFLite Micro's "
                                                     "integer LSTM reads them)")
    wide = x.dtype == "int16"
    activation, activation_range = ("int16", (-32768, 32767)) if wide else ("int8", (-128, 127))
    require(not wide or x.zero_point == 0, op, f"the int16 input's zero point is {x.zero_point}, not 0 "
                                               "(16x8 activations are symmetric)")
    require(len(x.shape) == 3 and len(out.shape) == 3, op,
            f"input {x.shape} and output {out.shape} must be 3-D (batch and time, then features)")
    options = op.options
    require(options.fused_activation_function == ACT_TANH, op,
            f"cell gate activation {options.fused_activation_function} is not supported (TANH only, as TFLite Micro)")
    time_major = bool(options.time_major)
    steps, batch = (x.shape[0], x.shape[1]) if time_major else (x.shape[1], x.shape[0])
    input_size = x.shape[2]
    state = tensor(graph, op, OUTPUT_STATE)
    require(state is not None and len(state.shape) >= 1, op, f"the output state (input {OUTPUT_STATE}) is missing")
    units = state.shape[-1]
    hidden = _state(graph, op, OUTPUT_STATE, activation, batch * units, "output state")
    require(not wide or hidden.zero_point == 0, op, f"the int16 output state's zero point is {hidden.zero_point}, "
                                                    "not 0 (16x8 activations are symmetric)")
    cell = _state(graph, op, CELL_STATE, "int16", batch * units, "cell state")
    require(out.shape == (x.shape[0], x.shape[1], units), op,
            f"output shape {out.shape} is not [{x.shape[0]}, {x.shape[1]}, {units}]")
    _absent(graph, op, PEEPHOLE, "a peephole LSTM")
    _absent(graph, op, PROJECTION, "a projection")
    _absent(graph, op, LAYER_NORM, "layer normalization")
    gates = []
    for g, name in enumerate(GATES):
        w_in = _weights(graph, op, INPUT_WEIGHTS[g], units, input_size, f"input-to-{name}")
        w_rec = _weights(graph, op, RECURRENT_WEIGHTS[g], units, units, f"recurrent-to-{name}")
        m_in, s_in = _gate_multiplier(op, x, w_in, wide)
        m_rec, s_rec = _gate_multiplier(op, hidden, w_rec, wide)
        bias = _bias(graph, op, BIASES[g], units, name, "int64" if wide else "int32")
        gates.append(Gate(input_weights=w_in.data, recurrent_weights=w_rec.data,
                          bias=bias, input_multiplier=m_in, input_shift=s_in,
                          recurrent_multiplier=m_rec, recurrent_shift=s_rec))
    cell_scale = cell.scale
    require(cell_scale > 0, op, f"the cell state scale {cell_scale:g} must be positive")
    power = checked_log2(cell_scale)
    require(-31 <= 12 + power <= MAX_TANH_LEFT_SHIFT, op,
            f"cell state scale {cell_scale:g} is outside what TFLite's int16 tanh can shift "
            f"(2^-43 to 2^{MAX_TANH_LEFT_SHIFT - 12})")
    clip = float(options.cell_clip)
    # TFLite Micro clips whenever the float clip is positive, even when its int16 value (a float32
    # quotient, truncated) is 0
    quantized_clip = int(min(max(np.float32(clip) / np.float32(cell_scale), -32768.0), 32767.0)) if clip > 0 else -1
    int16 = (-32768, 32767)
    return LstmParams(
        time_major=time_major, batch=batch, steps=steps, input_size=input_size, units=units,
        input_offset=-x.zero_point, state_offset=-hidden.zero_point, gates=tuple(gates),
        forget_times_cell=_rescale(op, GATE_OUTPUT_SCALE * cell_scale / cell_scale, 0, *int16),
        input_times_cell_gate=_rescale(op, GATE_OUTPUT_SCALE * GATE_OUTPUT_SCALE / cell_scale, 0, *int16),
        output_times_tanh=_rescale(op, GATE_OUTPUT_SCALE * GATE_OUTPUT_SCALE / hidden.scale, hidden.zero_point,
                                   *activation_range),
        cell_power=power, cell_clip=quantized_clip, output_state=hidden.index, cell_state=cell.index,
        output_shape=out.shape, wide=wide, step_kind=f"{KIND}_S16" if wide else KIND)


def macs(params: LstmParams) -> int:
    """Four gates, each an input and a recurrent layer, per batch row and time step."""
    return params.batch * params.steps * 4 * params.units * (params.input_size + params.units)


def scratch(params: LstmParams) -> int:
    """The C kernel's buffers: the current input row, and the new output state row (the old one is
    still read by every unit's recurrent layers until the row is done)."""
    return params.input_size + params.units


# Inputs that may be omitted (-1) in TFLite's schema: the CIFG input gate (prepare refuses it, as
# TFLite Micro does), peepholes, projection and layer normalization.
OPTIONAL = frozenset({1, 5, 12, *PEEPHOLE, *PROJECTION, *LAYER_NORM})

SPEC = OpSpec(KIND, kind_id=36, emit=emit, prepare=prepare, c_kernel="vmcu_lstm_s8", macs=macs,
              arity=((24, 24), 1, OPTIONAL), options="UnidirectionalSequenceLSTMOptions",
              state_inputs=frozenset({OUTPUT_STATE, CELL_STATE}), scratch=scratch,
              activation_types=frozenset({"int16"}))
