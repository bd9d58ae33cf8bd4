"""DEPTHWISE_CONV_2D reference kernel: TFLite's DepthwiseConvPerChannel (int32 accumulation)."""
from __future__ import annotations

import numpy as np

from .base import Kernel, requantize16, requantize_channels, tap_views


class DepthwiseConv2D(Kernel):
    kind = "DEPTHWISE_CONV_2D"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        n, o_h, o_w, c_out = p.output_shape
        _, k_h, k_w, _ = p.filter.shape
        if getattr(p, "element", 1) == 2:  # 16x8: exact sums, int64 or int32 accumulators, int16 out
            return self._run16(x)
        shifted = x.astype(np.int32) + np.int32(p.input_offset)  # padding then contributes exactly 0
        if p.depth_multiplier > 1:  # output channel c reads input channel c // depth_multiplier
            shifted = np.repeat(shifted, p.depth_multiplier, axis=3)
        weights = p.filter[0].astype(np.int32)
        acc = np.zeros((n, o_h, o_w, c_out), dtype=np.int32)  # wraps as TFLite's int32 accumulator
        for ky, kx, view in tap_views(shifted, (k_h, k_w), p.stride, p.dilation, p.padding, (o_h, o_w)):
            acc += view * weights[ky, kx]
        return requantize_channels(acc, p.bias, p.output_offset, p.requant)

    def _run16(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        n, o_h, o_w, c_out = p.output_shape
        _, k_h, k_w, _ = p.filter.shape
        wide = np.repeat(x.astype(np.int64), p.depth_multiplier, axis=3)  # zero point 0: padding adds 0
        weights = p.filter[0].astype(np.int64)
        acc = np.zeros((n, o_h, o_w, c_out), dtype=np.int64)
        for ky, kx, view in tap_views(wide, (k_h, k_w), p.stride, p.dilation, p.padding, (o_h, o_w)):
            acc += view * weights[ky, kx]
        return requantize16(acc, p.bias, p.requant, p.wide)
