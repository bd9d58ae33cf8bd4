"""MAX_POOL_2D_S16: an int16 MAX_POOL_2D (a 16x8 model's), TFLite Micro's int16 MaxPool: the greatest
in-bounds tap, clamped. MAX_POOL_2D's prepare makes it (`Pool16Params`). The kernel reads one channel's
taps, then writes that output element: the output may land on input bytes no later window reads."""
from __future__ import annotations

from ..codegen.params.average_pool2d import emit
from .average_pool2d import pool16_access
from .spec import OpSpec

KIND = "MAX_POOL_2D_S16"

SPEC = OpSpec(KIND, kind_id=63, emit=emit, c_kernel="vmcu_max_pool2d_s16", access=pool16_access(1), wraps=True)
