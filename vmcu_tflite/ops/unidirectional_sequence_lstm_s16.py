"""UNIDIRECTIONAL_SEQUENCE_LSTM_S16: a 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 input, output and output
state with zero point 0, int8 weights, int64 gate biases, int16 cell state), TFLite Micro's LSTM
instantiated for int16 activations. UNIDIRECTIONAL_SEQUENCE_LSTM's prepare makes it (`LstmParams`
with `wide`); the arithmetic differs from the int8 LSTM only in the fully connected layers' int64
sums and 64-bit requantization and in the int16 output state. Whole tensors, the output apart."""
from __future__ import annotations

from ..codegen.params.lstm import emit_s16
from .spec import OpSpec
from .unidirectional_sequence_lstm import LstmParams, macs

KIND = "UNIDIRECTIONAL_SEQUENCE_LSTM_S16"


def scratch(params: LstmParams) -> int:
    """The C kernel's int16 buffers (the current input row, the new output state row), and a byte
    to align them."""
    return 2 * (params.input_size + params.units) + 1


SPEC = OpSpec(KIND, kind_id=90, emit=emit_s16, c_kernel="vmcu_lstm_s16", macs=macs, scratch=scratch)
