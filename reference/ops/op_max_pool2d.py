"""MAX_POOL_2D reference kernel: TFLite's integer MaxPool (in-bounds taps only, then the clamp)."""
from __future__ import annotations

import numpy as np

from .base import Kernel, tap_views


class MaxPool2D(Kernel):
    kind = "MAX_POOL_2D"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        _, o_h, o_w, _ = p.output_shape
        # Out-of-bounds taps read -128, the value TFLite starts its maximum from: they never win;
        # where a PAD was folded in they read its value, as the PAD's output holds it there.
        fill = -128 if p.pad_value is None else p.pad_value
        result = np.full(p.output_shape, -128, dtype=np.int8)
        for _, _, view in tap_views(x, p.filter, p.stride, (1, 1), p.padding, (o_h, o_w), fill=fill):
            np.maximum(result, view, out=result)
        return np.clip(result, p.act_min, p.act_max).astype(np.int8)
