"""UNIDIRECTIONAL_SEQUENCE_LSTM reference kernel: TFLite Micro's 8x8->16 integer LSTM, step by step.

Vectorised over batch rows and units; time steps run in order, since each one reads the state
the previous one wrote. The state arrays are updated in place: after `run` they hold what TFLite
Micro's variable tensors hold after the same invocation.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel, exact_matmul

INT16_MIN, INT16_MAX = -32768, 32767

# sigmoid(i / 24) in Q0.16 for i = 0..255, as TFLite's int16 LOGISTIC and TANH tables hold it:
# round(65536 * sigmoid(i / 24)) except at 44 entries, one higher (the last among them). tanh(x) is read
# from it as 2 * sigmoid(2x) - 1. (tests/ops/test_op_unidirectional_sequence_lstm.py checks every
# entry against TFLite Micro's int16 TANH.)
SIGMOID_TABLE = np.array([
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
], dtype=np.int64)


def _interpolate(magnitude: np.ndarray, fraction_bits: int, saturated: int) -> np.ndarray:
    """The table at magnitude / 2^fraction_bits, linearly interpolated and scaled by
    2^fraction_bits; `saturated` past the table's end (TFLite's kernels each pick their own)."""
    index = magnitude >> fraction_bits
    inside = index < 255
    safe = np.where(inside, index, 0)
    low, high = SIGMOID_TABLE[safe], SIGMOID_TABLE[safe + 1]
    value = (low << fraction_bits) + (magnitude & ((1 << fraction_bits) - 1)) * (high - low)
    return np.where(inside, value, saturated)


def sigmoid_int16(x: np.ndarray) -> np.ndarray:
    """sigmoid of a Q3.12 int16 as Q0.15: TFLite's int16 Logistic with the power-of-two input
    multiplier 3 (x * 3/4 puts 2^7 table steps in each unit of x; 9 fraction bits index it)."""
    v = np.asarray(x, dtype=np.int64) * 3
    sigmoid_abs = _interpolate(np.abs(v), 9, saturated=0x7FFF << 10)  # Q0.16 scaled by 2^9
    # To Q0.15 rounding half up; below zero 1 - sigmoid(|x|), rounding the same way.
    result = np.where(v >= 0, sigmoid_abs + (1 << 9), (1 << 25) - sigmoid_abs + (1 << 9) - 1)
    return (result >> 10).astype(np.int16)


def tanh_int16(x: np.ndarray, left_shift: int) -> np.ndarray:
    """tanh of an int16 at scale 2^(left_shift - 12) as Q0.15: TFLite's int16 Tanh with the
    power-of-two input (multiplier 3 << shift, or 3 and a rounding right shift when negative)."""
    v = np.asarray(x, dtype=np.int64)
    if left_shift >= 0:
        v = v * (3 << left_shift)
    else:
        right = -left_shift
        v = (v * 3 + (1 << (right - 1))) >> right
    sigmoid_2x = _interpolate(np.abs(v), 8, saturated=0xFFFF << 8)  # sigmoid(2|x|) in Q0.16 scaled by 2^8
    result = np.where(v >= 0, sigmoid_2x - (1 << 23) + (1 << 7), -sigmoid_2x + (1 << 23) + (1 << 7) - 1)
    return (result >> 8).astype(np.int16)


def fully_connected_int16(rows: np.ndarray, offset: int, weights: np.ndarray, bias, multiplier: int,
                          shift: int) -> np.ndarray:
    """int8 rows [R, K] + offset times weights [N, K]^T (+ bias), requantized to int16 with
    saturation: a gate's fully connected layer."""
    acc = exact_matmul(rows.astype(np.int64) + offset, weights.T)
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    scaled = multiply_by_quantized_multiplier(wrap_int32(acc), multiplier, shift)
    return np.clip(scaled, INT16_MIN, INT16_MAX)


def saturating_add_int16(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.clip(a.astype(np.int64) + b, INT16_MIN, INT16_MAX)


def multiply(a: np.ndarray, b: np.ndarray, rescale) -> np.ndarray:
    """Elementwise int16 x int16 (zero points 0) to the rescale's grid: TFLite's MulElementwise."""
    product = a.astype(np.int64) * b.astype(np.int64)
    scaled = multiply_by_quantized_multiplier(product, rescale.multiplier, rescale.shift) + rescale.offset
    return np.clip(scaled, rescale.low, rescale.high)


class UnidirectionalSequenceLstm(Kernel):
    kind = "UNIDIRECTIONAL_SEQUENCE_LSTM"
    stateful = True
    activation = np.int8  # the input's, the output's and the output state's type

    def layer(self, rows: np.ndarray, offset: int, weights: np.ndarray, bias, multiplier: int,
              shift: int) -> np.ndarray:
        """One of a gate's fully connected layers, requantized to int16 (int32 sums here)."""
        return fully_connected_int16(rows, offset, weights, bias, multiplier, shift)

    def _gate(self, g: int, x_t: np.ndarray, h: np.ndarray) -> np.ndarray:
        """A gate's int16 pre-activation: input layer (with bias) + recurrent layer, saturated."""
        p, gate = self.params, self.params.gates[g]
        from_input = self.layer(x_t, p.input_offset, gate.input_weights, gate.bias, gate.input_multiplier,
                                gate.input_shift)
        from_state = self.layer(h, p.state_offset, gate.recurrent_weights, None, gate.recurrent_multiplier,
                                gate.recurrent_shift)
        return saturating_add_int16(from_input, from_state)

    def step(self, x_t: np.ndarray, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One time step over every batch row: (new output state, new cell state int16)."""
        p = self.params
        input_gate = sigmoid_int16(self._gate(0, x_t, h))
        forget_gate = sigmoid_int16(self._gate(1, x_t, h))
        cell_gate = tanh_int16(self._gate(2, x_t, h), left_shift=0)  # Q3.12 in: no shift
        c = saturating_add_int16(multiply(forget_gate, c, p.forget_times_cell),
                                 multiply(input_gate, cell_gate, p.input_times_cell_gate))
        if p.cell_clip >= 0:
            c = np.clip(c, -p.cell_clip, p.cell_clip)
        output_gate = sigmoid_int16(self._gate(3, x_t, h))
        h = multiply(tanh_int16(c, p.tanh_left_shift), output_gate, p.output_times_tanh)
        return h.astype(self.activation), c.astype(np.int16)

    def run(self, x: np.ndarray, *, state: dict[int, np.ndarray]) -> np.ndarray:
        p = self.params
        h_state, c_state = state[p.output_state], state[p.cell_state]
        h = h_state.reshape(p.batch, p.units).copy()
        c = c_state.reshape(p.batch, p.units).copy()
        by_time = x if p.time_major else np.swapaxes(x, 0, 1)  # [T, B, I]
        out = np.empty((p.steps, p.batch, p.units), dtype=self.activation)
        for t in range(p.steps):
            h, c = self.step(by_time[t], h, c)
            out[t] = h
        h_state[...] = h.reshape(h_state.shape)
        c_state[...] = c.reshape(c_state.shape)
        return (out if p.time_major else np.swapaxes(out, 0, 1)).reshape(p.output_shape)
