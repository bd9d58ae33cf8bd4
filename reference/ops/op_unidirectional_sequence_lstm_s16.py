"""UNIDIRECTIONAL_SEQUENCE_LSTM_S16 reference kernel: TFLite Micro's 16x8 LSTM (int16 input, output
and output state, int8 weights, int64 gate biases, int16 cell state).

The int8 kernel's step with two differences TFLite Micro's 16x8 instantiation makes: every gate's
fully connected layer sums in int64 (its bias type) and is requantized by the 64-bit
MultiplyByQuantizedMultiplier, and the output state is int16.
"""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier_64
from .base import exact_matmul
from .op_unidirectional_sequence_lstm import INT16_MAX, INT16_MIN, UnidirectionalSequenceLstm


def fully_connected_wide(rows: np.ndarray, offset: int, weights: np.ndarray, bias, multiplier: int,
                         shift: int) -> np.ndarray:
    """int16 rows [R, K] + offset times int8 weights [N, K]^T (+ int64 bias) in int64, requantized to
    int16 with saturation."""
    acc = exact_matmul(rows.astype(np.int64) + offset, weights.T)
    if bias is not None:
        acc = acc + bias.astype(np.int64)
    return np.clip(multiply_by_quantized_multiplier_64(acc, multiplier, shift), INT16_MIN, INT16_MAX)


class UnidirectionalSequenceLstmS16(UnidirectionalSequenceLstm):
    kind = "UNIDIRECTIONAL_SEQUENCE_LSTM_S16"
    activation = np.int16

    def layer(self, rows, offset, weights, bias, multiplier, shift):
        return fully_connected_wide(rows, offset, weights, bias, multiplier, shift)
