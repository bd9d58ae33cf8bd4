"""MEAN_S16: an int16 MEAN (a 16x8 model's), TFLite Micro's QuantizedMeanOrSum<int16_t>: an int32 sum per
output, minus input zero point x count, one requantization whose multiplier folds in 1 / count, clamped
to int16. MEAN's prepare makes it (`MeanS16Params`). A spatial MEAN writes output channel c once it has
read channel c of every pixel (`mean.mean16_access`)."""
from __future__ import annotations

from ..codegen.params.mean import emit
from .mean import mean16_access
from .spec import OpSpec

KIND = "MEAN_S16"

SPEC = OpSpec(KIND, kind_id=64, emit=emit, c_kernel="vmcu_mean_s16", access=mean16_access, wraps=True)
