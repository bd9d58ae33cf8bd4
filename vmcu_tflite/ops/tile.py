"""TILE: int8 repetition of the input `multiples[d]` times along each axis d (detector heads tile
their anchors or a feature row). TFLite Micro has no kernel for it, so its oracle is TFLite's own
(LiteRT's reference kernel, see `vmcu_tflite.oracle`).

The runtime's strided copy does it: the output, read as [m0, n0, m1, n1, ...] (m the multiples, n
the input's dims), walks the input with stride 0 along every m axis. Axes of one element and
axes that continue each other's stride are merged first; a tile that still needs more than the
copy's 5 axes (three or more separated tiled axes) is refused. int16 tensors (a 16x8 model's) are
tiled as their bytes: the input gets an innermost axis over an element's 2 bytes, tiled once.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.common import row_major_strides
from ..codegen.params.strided_copy import MAX_RANK, strided_copy
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "TILE"
TYPES = ("int8", "int16")


@dataclass(frozen=True)
class TileParams:
    input_shape: tuple[int, ...]
    multiples: tuple[int, ...]
    output_shape: tuple[int, ...]
    copy_dims: tuple[int, ...]  # the strided copy's walk over the output
    copy_strides: tuple[int, ...]  # input elements per step along each copy dim (0: a repetition)


def copy_walk(input_shape, multiples) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The output as the fewest (dims, input strides): [m0, n0, m1, n1, ...] with strides [0, s0,
    0, s1, ...], without axes of size 1 and with each axis merged into the previous one when the
    previous one's stride continues it (stride = next stride x next size)."""
    strides = row_major_strides(input_shape)
    axes = [(d, s) for m, n, stride in zip(multiples, input_shape, strides) for d, s in ((m, 0), (n, stride)) if d != 1]
    merged: list[tuple[int, int]] = []
    for d, s in axes:
        if merged and merged[-1][1] == s * d:
            merged[-1] = (merged[-1][0] * d, s)
        else:
            merged.append((d, s))
    merged = merged or [(1, 0)]
    return tuple(d for d, _ in merged), tuple(s for _, s in merged)


def prepare(graph: Graph, op: Op) -> TileParams:
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in TYPES and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    multiples_tensor = tensor(graph, op, 1)
    rank = len(input_.shape)
    require(multiples_tensor is not None and multiples_tensor.dtype in ("int32", "int64")
            and multiples_tensor.num_elements == rank, op, f"multiples must be {rank} int32 or int64 values")
    multiples = tuple(int(m) for m in constant(graph, op, 1, "the multiples").reshape(-1))
    require(all(m >= 1 for m in multiples), op, f"multiples {multiples} must be positive")
    expected = tuple(n * m for n, m in zip(input_.shape, multiples))
    require(out.shape == expected, op, f"output shape {out.shape} is not the tiled {expected}")
    require(input_.quant == out.quant, op, "TILE copies values: input and output quantization must be the same")
    size = np.dtype(input_.dtype).itemsize  # the walk counts bytes: an innermost axis over each element's
    dims, strides = copy_walk(input_.shape + (size,), multiples + (1,))
    require(len(dims) <= MAX_RANK, op, f"this tile of {input_.shape} by {multiples} walks {len(dims)} axes; "
                                       f"the copy kernel walks at most {MAX_RANK}")
    return TileParams(input_shape=input_.shape, multiples=multiples, output_shape=out.shape, copy_dims=dims,
                      copy_strides=strides)


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_strided_copy_params", strided_copy(p.copy_dims, p.copy_strides)


SPEC = OpSpec(KIND, kind_id=38, emit=emit, prepare=prepare, c_kernel="vmcu_strided_copy_s8", arity=TWO_INPUTS,
              options="TileOptions", activation_types=frozenset({"int16"}))
