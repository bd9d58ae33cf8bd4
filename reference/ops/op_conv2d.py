"""CONV_2D reference kernel: TFLite's ConvPerChannel (grouped convolution included), int8 or 16x8, over its
input upsampled first where the converter folded a RESIZE_NEAREST_NEIGHBOR by whole factors into it."""
from __future__ import annotations

import numpy as np

from .base import Kernel, exact_matmul, requantize16, requantize_channels, window_taps


class Conv2D(Kernel):
    kind = "CONV_2D"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        f_h, f_w = getattr(p, "upsample", (1, 1))  # a nearest upsample folded in: each pixel repeated f_h x f_w
        x = np.repeat(np.repeat(x, f_h, axis=1), f_w, axis=2)
        n, o_h, o_w, c_out = p.output_shape
        _, k_h, k_w, c_per_group = p.filter.shape
        shifted = x.astype(np.int64) + p.input_offset  # padding then contributes exactly 0
        taps = window_taps(shifted, (k_h, k_w), p.stride, p.dilation, p.padding, (o_h, o_w))
        groups = x.shape[3] // c_per_group
        per_group = c_out // groups
        acc = np.empty((n, o_h, o_w, c_out), dtype=np.int64)
        for g in range(groups):
            cols = taps[..., g * c_per_group:(g + 1) * c_per_group].reshape(n * o_h * o_w, -1)
            weights = p.filter[g * per_group:(g + 1) * per_group].reshape(per_group, -1)
            acc[..., g * per_group:(g + 1) * per_group] = exact_matmul(cols, weights.T).reshape(n, o_h, o_w, per_group)
        if getattr(p, "element", 1) == 2:  # 16x8: int64 or int32 accumulators, int16 out
            return requantize16(acc, p.bias, p.requant, p.wide)
        return requantize_channels(acc, p.bias, p.output_offset, p.requant)
