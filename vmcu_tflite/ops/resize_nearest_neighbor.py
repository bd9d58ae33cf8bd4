"""RESIZE_NEAREST_NEIGHBOR: int8 or int16 NHWC upsampling/downsampling to a constant size.

The source row and column of every output position are computed here, with TFLite's float32
arithmetic (align_corners rounds, otherwise floors; half_pixel_centers offsets by 0.5), so the
kernel is a gather. Values are copied, so quantization passes through unchanged; an int16 tensor's
(a 16x8 model's) pixels are gathered as their bytes (`resize_bytes_shape`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.resize_nearest_neighbor import emit
from ..graph import Graph, Op, Tensor
from .common import constant, output, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "RESIZE_NEAREST_NEIGHBOR"


@dataclass(frozen=True, eq=False)
class ResizeNearestNeighborParams:
    output_shape: tuple[int, int, int, int]
    rows: np.ndarray  # [out_h] source row of each output row
    cols: np.ndarray  # [out_w] source column of each output column


def nearest_neighbor_indices(input_size: int, output_size: int, align_corners: bool,
                             half_pixel_centers: bool) -> np.ndarray:
    """TFLite's GetNearestNeighbor for every output index, in float32 like TFLite."""
    if align_corners and output_size > 1:
        scale = np.float32(input_size - 1) / np.float32(output_size - 1)
    else:
        scale = np.float32(input_size) / np.float32(output_size)
    offset = np.float32(0.5 if half_pixel_centers else 0.0)
    position = (np.arange(output_size, dtype=np.float32) + offset) * scale  # float32 throughout
    if align_corners:
        p64 = position.astype(np.float64)
        picked = np.copysign(np.floor(np.abs(p64) + 0.5), p64)  # std::round, exact on float32 values
    else:
        picked = np.floor(position)
    index = np.minimum(picked.astype(np.int64), input_size - 1)
    if half_pixel_centers:
        index = np.maximum(index, 0)
    return index


def resize_tensors(graph: Graph, op: Op, int16: bool = False) -> tuple[Tensor, Tensor, bool, bool]:
    """Input, output, align_corners and half_pixel_centers of a RESIZE_* op, checked: NHWC, int8
    (int16 where `int16` says the op has an int16 kernel), the output of the constant size input's
    height and width."""
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects an input, a size and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    if int16:
        require(input_.dtype in ("int8", "int16") and out.dtype == input_.dtype, op,
                f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    else:
        require(input_.dtype == "int8" and out.dtype == "int8", op, "only int8 tensors are supported")
    require(len(input_.shape) == 4 and len(out.shape) == 4, op, "expects 4-D NHWC input and output")
    size_tensor = tensor(graph, op, 1)
    require(size_tensor is not None and size_tensor.dtype == "int32" and size_tensor.shape == (2,), op,
            "the size must be an int32 tensor of shape (2,)")
    size = constant(graph, op, 1, "the size")
    out_h, out_w = int(size[0]), int(size[1])
    n, _, _, c = input_.shape
    require(out_h > 0 and out_w > 0, op, f"size ({out_h}, {out_w}) is not positive")
    require(out.shape == (n, out_h, out_w, c), op,
            f"output shape {out.shape} does not match {(n, out_h, out_w, c)} from the size input")
    return input_, out, bool(op.options.align_corners), bool(op.options.half_pixel_centers)


def prepare(graph: Graph, op: Op) -> ResizeNearestNeighborParams:
    input_, out, align_corners, half_pixel_centers = resize_tensors(graph, op, int16=True)
    (_, in_h, in_w, _), (_, out_h, out_w, _) = input_.shape, out.shape
    rows = nearest_neighbor_indices(in_h, out_h, align_corners, half_pixel_centers)
    cols = nearest_neighbor_indices(in_w, out_w, align_corners, half_pixel_centers)
    rows.flags.writeable = False
    cols.flags.writeable = False
    return ResizeNearestNeighborParams(output_shape=out.shape, rows=rows, cols=cols)


SPEC = OpSpec(KIND, kind_id=12, emit=emit, prepare=prepare, c_kernel="vmcu_resize_nearest_neighbor_s8",
              arity=TWO_INPUTS, options="ResizeNearestNeighborOptions", activation_types=frozenset({"int16"}))
