"""AVERAGE_POOL_2D reference kernel: TFLite's integer AveragePool.

The raw int8 values of a window's in-bounds taps are summed in int32 and divided by their count,
rounding half away from zero; input and output share their quantization, so no zero point enters.
"""
from __future__ import annotations

import numpy as np

from .base import Kernel, tap_views


def in_bounds_count(size: int, out_size: int, kernel: int, stride: int, pad: int) -> np.ndarray:
    """How many of each output position's filter taps fall inside an input of `size`."""
    origin = np.arange(out_size) * stride - pad
    return np.minimum(kernel, size - origin) - np.maximum(0, -origin)


class AveragePool2D(Kernel):
    kind = "AVERAGE_POOL_2D"

    def run(self, x: np.ndarray) -> np.ndarray:
        return self.mean(x).astype(np.int8)

    def mean(self, x: np.ndarray) -> np.ndarray:
        """The clamped window means, as int64."""
        p = self.params
        _, o_h, o_w, _ = p.output_shape
        padding = p.padding
        acc = np.zeros(p.output_shape, dtype=np.int64)
        fill = 0 if p.pad_value is None else p.pad_value  # a folded PAD's taps hold its value and count
        for _, _, view in tap_views(x.astype(np.int64), p.filter, p.stride, (1, 1), padding, (o_h, o_w), fill=fill):
            acc += view
        count = (in_bounds_count(x.shape[1], o_h, p.filter[0], p.stride[0], padding[0])[:, None]
                 * in_bounds_count(x.shape[2], o_w, p.filter[1], p.stride[1], padding[1])[None, :])
        if p.pad_value is not None:
            count = np.full_like(count, p.filter[0] * p.filter[1])
        count = count[None, :, :, None]
        mean = np.sign(acc) * ((np.abs(acc) + count // 2) // count)
        return np.clip(mean, p.act_min, p.act_max)
