"""PULLED_ROW: not a TFLite op but the step an UNPACK part of a streamed model input becomes
(`vmcu_tflite/pulled_rows.py`): a recurrent model's frame, pulled from the application straight into
the part's place in the pool just before the first step that reads it, so the sequence never
exists whole. Its kernel is generated from the kernel language (`vmcu_tflite/kernels/rows.py`): one
PullRow, which the interpreter serves through the row protocol and the C through `vmcu_pull_row`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.pulled_row import emit
from .spec import OpSpec
from .strided_slice import SliceParams

KIND = "PULLED_ROW"


@dataclass(frozen=True)
class PulledRowParams:
    """Row `row` (`row_bytes` bytes) of streamed model input `pulls_input`, which is the UNPACK
    part `part` (the reference computes its values as the UNPACK does, from the whole input)."""

    part: SliceParams
    pulls_input: int
    row: int
    row_bytes: int


SPEC = OpSpec(KIND, kind_id=92, emit=emit)
