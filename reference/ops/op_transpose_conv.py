"""TRANSPOSE_CONV reference kernel: TFLite's reference_integer_ops TransposeConv, scattering each
input pixel through the filter into int32 sums of the whole output, then requantizing."""
from __future__ import annotations

import numpy as np

from ..fixed_point import wrap_int32
from .base import Kernel, exact_matmul, requantize_channels


class TransposeConv(Kernel):
    kind = "TRANSPOSE_CONV"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        n, out_h, out_w, c_out = p.output_shape
        _, k_h, k_w, c_in = p.filter.shape
        (s_h, s_w), (pad_h, pad_w) = p.stride, p.padding
        _, in_h, in_w, _ = x.shape
        shifted = x.astype(np.int64) + p.input_offset
        # room for every scattered tap, cut to the output afterwards
        sums = np.zeros((n, (in_h - 1) * s_h + k_h, (in_w - 1) * s_w + k_w, c_out), dtype=np.int64)
        for ky in range(k_h):
            for kx in range(k_w):
                taps = exact_matmul(shifted.reshape(-1, c_in), p.filter[:, ky, kx, :].T.astype(np.int64))
                sums[:, ky:ky + (in_h - 1) * s_h + 1:s_h, kx:kx + (in_w - 1) * s_w + 1:s_w, :] += \
                    taps.reshape(n, in_h, in_w, c_out)
        window = np.zeros((n, out_h, out_w, c_out), dtype=np.int64)
        rows = min(out_h, sums.shape[1] - pad_h)
        cols = min(out_w, sums.shape[2] - pad_w)
        window[:, :rows, :cols, :] = sums[:, pad_h:pad_h + rows, pad_w:pad_w + cols, :]
        return requantize_channels(wrap_int32(window), p.bias, p.output_offset, p.requant)
