"""RESIZE_BILINEAR reference kernel: TFLite's ResizeBilinearInteger for int8, its interpolation
values recomputed here from the options (not taken from the converter's tables)."""
from __future__ import annotations

import numpy as np

from .base import Kernel

ONE = 1 << 10


def _c_div(a: np.ndarray, b: int) -> np.ndarray:
    """C integer division (toward zero)."""
    return np.where(a >= 0, a // b, -((-a) // b))


def _positions(input_size: int, output_size: int, align_corners: bool, half_pixel_centers: bool):
    if align_corners and output_size > 1:
        scale = (ONE * (input_size - 1) + (output_size - 1) // 2) // (output_size - 1)
    else:
        scale = (ONE * input_size + output_size // 2) // output_size
    position = np.arange(output_size, dtype=np.int64) * scale
    if half_pixel_centers:
        position += scale // 2 - (1 << 9)
    lower = np.maximum(_c_div(position, ONE), 0)
    upper = np.minimum(_c_div(position + ONE - 1, ONE), input_size - 1)
    return lower, upper, position - ONE * lower


class ResizeBilinear(Kernel):
    kind = "RESIZE_BILINEAR"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        _, in_h, in_w, _ = x.shape
        _, out_h, out_w, _ = p.output_shape
        y0, y1, wy = _positions(in_h, out_h, p.align_corners, p.half_pixel_centers)
        x0, x1, wx = _positions(in_w, out_w, p.align_corners, p.half_pixel_centers)
        wy, wx = wy[None, :, None, None], wx[None, None, :, None]
        v = x.astype(np.int64)
        top, bottom = v[:, y0], v[:, y1]
        total = (top[:, :, x0] * (ONE - wy) * (ONE - wx) + bottom[:, :, x0] * wy * (ONE - wx)
                 + top[:, :, x1] * (ONE - wy) * wx + bottom[:, :, x1] * wy * wx)
        rounded = _c_div(total + np.where(total > 0, 1 << 19, -(1 << 19)), 1 << 20)
        return rounded.astype(np.int8)  # TFLite's cast wraps
