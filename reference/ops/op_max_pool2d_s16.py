"""MAX_POOL_2D_S16 reference kernel: TFLite's integer MaxPool over int16 values (the maximum starts
from -32768, which out-of-bounds taps read)."""
from __future__ import annotations

import numpy as np

from .base import Kernel, tap_views


class MaxPool2DS16(Kernel):
    kind = "MAX_POOL_2D_S16"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        _, o_h, o_w, _ = p.output_shape
        fill = -32768 if p.pad_value is None else p.pad_value
        result = np.full(p.output_shape, -32768, dtype=np.int16)
        for _, _, view in tap_views(np.asarray(x, dtype=np.int16), p.filter, p.stride, (1, 1), p.padding, (o_h, o_w),
                                    fill=fill):
            np.maximum(result, view, out=result)
        return np.clip(result, p.act_min, p.act_max).astype(np.int16)
