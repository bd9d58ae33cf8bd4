"""UNIDIRECTIONAL_SEQUENCE_LSTM_S16: a 16x8 UNIDIRECTIONAL_SEQUENCE_LSTM (int16 input, output and output
state with zero point 0, int8 weights, int64 gate biases, int16 cell state), TFLite Micro's LSTM
instantiated for int16 activations. UNIDIRECTIONAL_SEQUENCE_LSTM's prepare makes it (`LstmParams`
with `wide`); the arithmetic differs from the int8 LSTM only in the fully connected layers' int64
sums and 64-bit requantization and in the int16 output state. The kernel reads time step t's input row
into its scratch before it writes output row t, so the output may land on input rows already read
(`lstm_access`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..codegen.params.lstm import emit_s16
from ..graph import Graph
from ..planner.access import AccessPattern, rows
from .spec import OpSpec
from .unidirectional_sequence_lstm import LstmParams, macs

if TYPE_CHECKING:
    from ..steps import Step

KIND = "UNIDIRECTIONAL_SEQUENCE_LSTM_S16"


def scratch(params: LstmParams) -> int:
    """The C kernel's int16 buffers (the current input row, the new output state row), and a byte
    to align them."""
    return 2 * (params.input_size + params.units) + 1


def lstm_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """vmcu_lstm_s16's walk: batch row b, then time step t (whatever the planner's segment); row (b, t)
    of the input ([B, T, I], or [T, B, I] time major) is read whole, then the same row of the output
    ([.., units]) written. Only the sequence streams (the state lives in the state region)."""
    p = step.params
    if position != 0:
        return None
    in_row, out_row = 2 * p.input_size, 2 * p.units
    order = (1, p.batch) if p.time_major else (p.steps, 1)  # rows a step of (b, t) moves
    return rows((p.batch, p.steps), tuple(in_row * k for k in order), in_row, tuple(out_row * k for k in order),
                out_row)


SPEC = OpSpec(KIND, kind_id=90, emit=emit_s16, c_kernel="vmcu_lstm_s16", access=lstm_access, macs=macs,
              scratch=scratch, wraps=True)
