"""vmcu_pulled_row_params: which row of which streamed input the step pulls (its generated kernel
folds them in; the tables carry them for the model's CRC)."""
from __future__ import annotations

from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_pulled_row_params", struct(input=p.pulls_input, row=p.row, row_bytes=p.row_bytes)
