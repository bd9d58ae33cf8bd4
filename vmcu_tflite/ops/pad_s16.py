"""PAD_S16: an int16 PAD or PADV2 (a 16x8 model's) whose pad value is not two equal bytes (PADV2's
`constant_values`, quantized): the input's elements surrounded by the value, written as int16 elements.
PAD's and PADV2's prepare make it (`pad.PadS16Params`). It walks the output's rows as PAD's byte kernel
does (`pad.pad_access`): the output may land on input rows already copied."""
from __future__ import annotations

from ..codegen.params.pad import emit_s16
from .pad import pad_access
from .spec import OpSpec

KIND = "PAD_S16"

SPEC = OpSpec(KIND, kind_id=65, emit=emit_s16, c_kernel="vmcu_pad_s16", access=pad_access, wraps=True)
