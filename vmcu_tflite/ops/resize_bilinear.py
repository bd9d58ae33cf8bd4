"""RESIZE_BILINEAR: int8 NHWC to a constant size with TFLite's integer interpolation
(ResizeBilinearInteger): positions in 1/1024ths of an input pixel, four raw neighbours weighted
in int32 and rounded half away from zero. The raw int8 values are interpolated, zero point
included, so quantization passes through; TFLite Micro does not look at it.

Prepare computes each output row's and column's two neighbours and the 1/1024 weight of the
second, so the kernel only multiplies and adds. align_corners and half_pixel_centers are both
supported, not together (TFLite Micro refuses that).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.resize_bilinear import emit
from ..graph import Graph, Op
from .common import require
from .resize_nearest_neighbor import resize_tensors
from .spec import TWO_INPUTS, OpSpec

KIND = "RESIZE_BILINEAR"
ONE = 1 << 10  # positions and weights are in 1/1024ths


@dataclass(frozen=True, eq=False)
class ResizeBilinearParams:
    output_shape: tuple[int, int, int, int]
    align_corners: bool
    half_pixel_centers: bool
    rows: np.ndarray  # [out_h, 3]: first and second source row, weight of the second in 1/1024
    cols: np.ndarray  # [out_w, 3]: the same for columns


def scale_1024(input_size: int, output_size: int, align_corners: bool) -> int:
    """Input pixels per output pixel in 1/1024ths, rounded as TFLite does (C division)."""
    if align_corners and output_size > 1:
        return (ONE * (input_size - 1) + (output_size - 1) // 2) // (output_size - 1)
    return (ONE * input_size + output_size // 2) // output_size


def _c_div(a: int, b: int) -> int:
    """C integer division: toward zero (a half-pixel position can be negative)."""
    return a // b if a >= 0 else -(-a // b)


def interpolation(input_size: int, output_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """Per output index: (lower, upper, weight of upper), TFLite's ComputeInterpolationValuesInteger."""
    scale = scale_1024(input_size, output_size, align_corners)
    table = np.empty((output_size, 3), dtype=np.int32)
    for i in range(output_size):
        position = i * scale + (scale // 2 - ONE // 2 if half_pixel_centers else 0)
        lower = max(_c_div(position, ONE), 0)
        upper = min(_c_div(position + ONE - 1, ONE), input_size - 1)
        table[i] = (lower, upper, position - ONE * lower)
    table.flags.writeable = False
    return table


def prepare(graph: Graph, op: Op) -> ResizeBilinearParams:
    input_, out, align_corners, half_pixel_centers = resize_tensors(graph, op)
    require(not (align_corners and half_pixel_centers), op, "align_corners and half_pixel_centers are both set")
    (_, in_h, in_w, _), (_, out_h, out_w, _) = input_.shape, out.shape
    return ResizeBilinearParams(output_shape=out.shape, align_corners=align_corners,
                                half_pixel_centers=half_pixel_centers,
                                rows=interpolation(in_h, out_h, align_corners, half_pixel_centers),
                                cols=interpolation(in_w, out_w, align_corners, half_pixel_centers))


SPEC = OpSpec(KIND, kind_id=29, emit=emit, prepare=prepare, c_kernel="vmcu_resize_bilinear_s8", arity=TWO_INPUTS,
              options="ResizeBilinearOptions")
