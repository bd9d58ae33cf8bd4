"""AVERAGE_POOL_2D_S16: an int16 AVERAGE_POOL_2D (a 16x8 model's), TFLite Micro's int16 AveragePool:
the in-bounds taps summed in int32, divided by their count rounding half away from zero, clamped.
AVERAGE_POOL_2D's prepare makes it (`Pool16Params`). The kernel sums a pixel's channels in blocks of
BLOCK (its stack of sums) and writes a block once its taps are read: the output may land on input bytes
no later window reads."""
from __future__ import annotations

from ..codegen.params.average_pool2d import emit
from .average_pool2d import pool16_access
from .spec import OpSpec

KIND = "AVERAGE_POOL_2D_S16"
BLOCK = 16  # channels a block: vmcu_avg_pool2d_s16.c's BLOCK

SPEC = OpSpec(KIND, kind_id=62, emit=emit, c_kernel="vmcu_avg_pool2d_s16",
              access=pool16_access(BLOCK), wraps=True)
