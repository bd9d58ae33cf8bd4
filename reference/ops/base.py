"""What every reference kernel is: params bound once, then a pure function of int8 arrays.

The interpreter (not the kernel) moves bytes in and out of the simulated pool, so a kernel only
computes. Arrays arrive in the shapes of the TFLite tensors (NHWC) and the result must have the
output tensor's shape and dtype.
"""
from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_64, wrap_int32


class Kernel:
    """Base of the reference kernels; subclasses set `kind` and implement `run`.

    A `stateful` kernel (LSTM, SVDF) also gets `state=`: each variable tensor's array, which it
    reads and updates in place, so that the next run sees what TFLite keeps between invocations.
    """

    kind: ClassVar[str]
    stateful: ClassVar[bool] = False

    def __init__(self, params: Any) -> None:
        self.params = params

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def requantize_channels(acc: np.ndarray, bias: np.ndarray, output_offset: int, requant) -> np.ndarray:
    """int32 accumulators [..., C] + bias -> int8 with per-channel multipliers, as TFLite's conv/FC."""
    acc = wrap_int32(acc + bias.astype(np.int64))
    scaled = multiply_by_quantized_multiplier(acc, np.asarray(requant.multiplier, dtype=np.int64),
                                              np.asarray(requant.shift, dtype=np.int64))
    return np.clip(scaled + output_offset, requant.act_min, requant.act_max).astype(np.int8)


def requantize16(products: np.ndarray, bias: np.ndarray, requant, wide: bool) -> np.ndarray:
    """Exact sums of products [..., C] + bias -> int16: int64 accumulators and the 64-bit
    MultiplyByQuantizedMultiplier (`wide`), or int32 ones and the 32-bit form; the int16 clamp."""
    multiplier = np.asarray(requant.multiplier, dtype=np.int64)
    shift = np.asarray(requant.shift, dtype=np.int64)
    acc = np.asarray(products, dtype=np.int64) + np.asarray(bias, dtype=np.int64)
    if wide:
        scaled = multiply_by_quantized_multiplier_64(acc, multiplier, shift)
    else:
        scaled = multiply_by_quantized_multiplier(wrap_int32(acc), multiplier, shift)
    return np.clip(scaled, requant.act_min, requant.act_max).astype(np.int16)


def window_taps(x: np.ndarray, kernel_hw, stride, dilation, padding, out_hw, fill: float = 0):
    """Every filter tap's view of a padded NHWC input: array [N, out_h, out_w, K_h, K_w, C].

    Positions outside the input read `fill`; kernels that must skip them (pooling) pass a
    sentinel and mask it.
    """
    n, _, _, c = x.shape
    (k_h, k_w), (o_h, o_w) = kernel_hw, out_hw
    taps = np.empty((n, o_h, o_w, k_h, k_w, c), dtype=x.dtype)
    for ky, kx, view in tap_views(x, kernel_hw, stride, dilation, padding, out_hw, fill):
        taps[:, :, :, ky, kx, :] = view
    return taps


def exact_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer matrix product through float64 BLAS: exact while every partial sum stays below 2**53."""
    return np.rint(a.astype(np.float64) @ b.astype(np.float64)).astype(np.int64)


def tap_views(x: np.ndarray, kernel_hw, stride, dilation, padding, out_hw, fill=0):
    """Yield (ky, kx, view) for each filter tap: view[n, oy, ox, c] is the input that tap reads.

    Like `window_taps` but one tap at a time, so kernels can accumulate (sum, max) without holding
    every tap of every window at once. Positions outside the input read `fill`.
    """
    n, h, w, c = x.shape
    (k_h, k_w), (s_h, s_w), (d_h, d_w), (p_h, p_w), (o_h, o_w) = kernel_hw, stride, dilation, padding, out_hw
    need_h = (o_h - 1) * s_h + (k_h - 1) * d_h + 1
    need_w = (o_w - 1) * s_w + (k_w - 1) * d_w + 1
    padded = np.full((n, max(need_h, h + p_h), max(need_w, w + p_w), c), fill, dtype=x.dtype)
    padded[:, p_h:p_h + h, p_w:p_w + w, :] = x
    for ky in range(k_h):
        for kx in range(k_w):
            y0, x0 = ky * d_h, kx * d_w
            yield ky, kx, padded[:, y0:y0 + (o_h - 1) * s_h + 1:s_h, x0:x0 + (o_w - 1) * s_w + 1:s_w, :]


def with_constants(constants, activations) -> list[np.ndarray]:
    """The op's operands in TFLite order: each None slot of `constants` takes the next activation."""
    activations = list(activations)
    if len(activations) != sum(c is None for c in constants):
        raise ValueError(f"{len(activations)} activation inputs for {sum(c is None for c in constants)} slots")
    pending = iter(activations)
    return [next(pending) if c is None else c for c in constants]
