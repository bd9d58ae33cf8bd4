"""What windowed kernels share: the taps of a window that fall inside the input.

For output position o, stride s, padding p, dilation d and k taps over an input of n positions,
tap t reads input position o*s - p + t*d; the taps inside the input are [lo, hi) with
lo = ceil(max(0, p - o*s) / d) and hi = min(k, ceil(max(0, n - (o*s - p)) / d)) (empty when
lo >= hi), the C runtime's vmcu_tap_range. Kernels loop over exactly these taps.
"""
from __future__ import annotations

from dataclasses import dataclass

from .index import Ix, ceil_div, imax, imin

GATHER_BYTES = 128  # largest window a convolution gathers per pixel (bytes of stack)
# A 16x8 layer's: a 3x3 window of up to 16 int16 channels. Its int16 weights meet two inputs per SMLAD with
# no widening, about a third of the instructions of a window read in place (TFLite Micro's s16 convolution
# keeps such an im2col buffer too).
GATHER_BYTES_S16 = 288


@dataclass(frozen=True)
class Taps:
    origin: Ix  # input position of tap 0 (may be negative: padding)
    lo: Ix
    hi: Ix


def taps(out: Ix, stride: int, pad: int, dilation: int, kernel: int, size: int) -> Taps:
    origin = out * stride - pad
    lo = ceil_div(imax(0, pad - out * stride), dilation)
    hi = imin(kernel, ceil_div(imax(0, size - origin), dilation))
    return Taps(origin, imin(lo, hi), hi)


def interior(outputs: int, stride: int, pad: int, dilation: int, kernel: int, size: int) -> tuple[int, int] | None:
    """The output positions [a, b) whose whole window lies inside the input (every tap in
    bounds), or None when there are none: where `taps` is the constant [0, kernel)."""
    a = -(-pad // stride)
    b = min(outputs, (size - 1 + pad - (kernel - 1) * dilation) // stride + 1)
    return (a, b) if a < b else None


def layer_interior(p, axis: int) -> tuple[int, int] | None:
    """`interior` along rows (axis 0) or columns (axis 1) of a convolution or depthwise layer's
    params (NHWC shapes, filter [*, K_h, K_w, *], (h, w) stride, dilation and padding)."""
    return interior(p.output_shape[1 + axis], p.stride[axis], p.padding[axis], p.dilation[axis],
                    p.filter.shape[1 + axis], p.input_shape[1 + axis])


def new_rows(out: Ix, stride: int, pad: int, kernel: int, size: int) -> tuple[Ix, Ix]:
    """The input rows [lo, hi) that output row `out` is the first to need, when rows are made on
    demand in order (a fused layer's rows into a ring): its window ends at out*s - p + k, the
    previous row's at (out - 1)*s - p + k, and row 0 needs every row from 0 on."""
    lo = imax(0, imin(imin(size, (out - 1) * stride - pad + kernel), out * size))
    hi = imax(lo, imin(size, out * stride - pad + kernel))
    return lo, hi


def conv_way(p) -> str:
    """How the convolution `p` reads a pixel's window (`conv.py`'s docstring lists the ways)."""
    _, _, _, c_in = p.input_shape
    _, k_h, k_w, fc = p.filter.shape
    e = getattr(p, "element", 1)
    if e > 1:  # int16 activations: a small window gathered as it is (no widening), else read in place
        upsampled = getattr(p, "upsample", (1, 1)) != (1, 1)  # a kernel row's taps are no run of the input
        if fc == c_in and k_h * k_w * fc * e <= GATHER_BYTES_S16 and (k_h * k_w > 1 or upsampled):
            return "gather"
        return "rows" if fc == c_in and p.dilation[1] == 1 and not upsampled else "taps"
    upsampled = getattr(p, "upsample", (1, 1)) != (1, 1)  # pixels and kernel rows are no runs of the input
    if (k_h, k_w) == (1, 1) and p.stride == (1, 1) and p.padding == (0, 0) and fc == c_in and not upsampled:
        return "pixel"
    if fc == c_in and k_h * k_w * fc <= GATHER_BYTES and (k_h * k_w > 1 or upsampled):
        return "gather"
    return "rows" if fc == c_in and p.dilation[1] == 1 and not upsampled else "taps"
