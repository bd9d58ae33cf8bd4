"""BATCH_MATMUL, int8: a matrix product per batch index, batch dimensions broadcast.

As TFLite Micro's batch_matmul.cc with its reference kernel: both operands (either may be a
constant) are int8 with per-tensor zero points, ranks 2 to 5 extended with leading 1s to the
larger rank; a batch dimension of 1 broadcasts against the other's. `adj_x` transposes the last
two dimensions of the left operand, `adj_y` those of the right one. Each output element sums
(lhs - lhs zero point) x (rhs - rhs zero point) over the shared dimension in int32, scales by
lhs scale x rhs scale / output scale (TFLite's QuantizeMultiplier), adds the output zero point
and saturates to int8 (no fused activation).

int16 operands (16x8 models: TFLite Micro requires zero points 0 for both operands and the output)
sum in int64 and take TFLite's 64-bit requantization to int16; prepare hands them to the
BATCH_MATMUL_S16 step kind (`batch_matmul_s16`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.batch_matmul import emit
from ..graph import Graph, Op
from .common import output, output_multiplier, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "BATCH_MATMUL"
RANK = 5  # TFLite Micro's largest; shapes are extended to it (leading 1s)
WIDE_MAX_SHIFT = 14  # the 64-bit requantization shifts right by 15 - shift: at least 1
WIDE_MAX_DEPTH = 1 << 17  # int16 x int16 sums over at most this many stay below 2^47: x 2^15 fits int64


@dataclass(frozen=True, eq=False)
class BatchMatMulParams:
    lhs_shape: tuple[int, ...]  # extended to RANK
    rhs_shape: tuple[int, ...]
    output_shape: tuple[int, ...]  # the output tensor's own
    adj_x: bool
    adj_y: bool
    lhs_zero_point: int
    rhs_zero_point: int
    output_zero_point: int
    multiplier: int
    shift: int
    lhs_constant: np.ndarray | None  # int8 (int16) data of a constant operand, None for an activation
    rhs_constant: np.ndarray | None
    step_kind: str = KIND  # BATCH_MATMUL_S16 for int16 operands

    @property
    def dims(self) -> tuple[int, int, int]:
        """(rows of the output, the summed dimension, columns of the output)."""
        rows = self.lhs_shape[-1] if self.adj_x else self.lhs_shape[-2]
        depth = self.lhs_shape[-2] if self.adj_x else self.lhs_shape[-1]
        cols = self.rhs_shape[-2] if self.adj_y else self.rhs_shape[-1]
        return rows, depth, cols

    @property
    def batch(self) -> tuple[int, ...]:
        return tuple(max(a, b) for a, b in zip(self.lhs_shape[:-2], self.rhs_shape[:-2]))


def _extended(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (1,) * (RANK - len(shape)) + tuple(shape)


def prepare(graph: Graph, op: Op) -> BatchMatMulParams:
    lhs, rhs, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(lhs is not None and rhs is not None, op, "both operands are needed")
    types = {lhs.dtype, rhs.dtype, out.dtype}
    require(types in ({"int8"}, {"int16"}), op, "operands and output must all be int8 or all int16 (TFLite Micro "
                                                "mixes no types)")
    wide = types == {"int16"}
    for name, t in (("left operand", lhs), ("right operand", rhs), ("output", out)):
        require(t.quant is not None and not t.quant.per_channel, op, f"the {name} must be quantized per tensor")
    require(2 <= len(lhs.shape) <= RANK and 2 <= len(rhs.shape) <= RANK, op,
            f"operand ranks {len(lhs.shape)} and {len(rhs.shape)}: TFLite Micro takes 2 to {RANK}")
    rank = max(len(lhs.shape), len(rhs.shape))
    a, b = _extended(lhs.shape), _extended(rhs.shape)
    for x, y in zip(a[:-2], b[:-2]):
        require(x == y or x == 1 or y == 1, op, f"batch dimensions {lhs.shape[:-2]} and {rhs.shape[:-2]} do not "
                                                "broadcast")
    adj_x, adj_y = bool(op.options.adj_x), bool(op.options.adj_y)
    depth_lhs = a[-2] if adj_x else a[-1]
    depth_rhs = b[-1] if adj_y else b[-2]
    require(depth_lhs == depth_rhs, op, f"the left operand sums over {depth_lhs} values, the right one {depth_rhs}")
    batch = tuple(max(x, y) for x, y in zip(a[:-2], b[:-2]))
    rows, cols = (a[-1] if adj_x else a[-2]), (b[-2] if adj_y else b[-1])
    expected = (batch + (rows, cols))[RANK - rank:]
    require(out.shape == expected, op, f"output shape {out.shape} is not the product's {expected}")
    require(min(a + b) >= 1, op, "an operand is empty")
    multiplier, shift = output_multiplier(op, lhs.scale * rhs.scale / out.scale)
    if wide:
        zero_points = (lhs.zero_point, rhs.zero_point, out.zero_point)
        require(zero_points == (0, 0, 0), op, f"int16 zero points {zero_points}: TFLite Micro requires 0 for both "
                                              "operands and the output")
        require(shift <= WIDE_MAX_SHIFT, op, f"the rescale needs a left shift of {shift}; the 16x8 int64 form "
                                             f"applies at most {WIDE_MAX_SHIFT}")
        require(depth_lhs <= WIDE_MAX_DEPTH, op, f"a sum over {depth_lhs} int16 products is not supported (at most "
                                                 f"{WIDE_MAX_DEPTH}: the 64-bit requantization's product must fit)")
    element = np.int16 if wide else np.int8

    def data(t):
        if not t.is_constant:
            return None
        flat = np.ascontiguousarray(t.data, dtype=element).reshape(-1)
        flat.flags.writeable = False
        return flat

    return BatchMatMulParams(lhs_shape=a, rhs_shape=b, output_shape=out.shape, adj_x=adj_x, adj_y=adj_y,
                             lhs_zero_point=lhs.zero_point, rhs_zero_point=rhs.zero_point,
                             output_zero_point=out.zero_point, multiplier=multiplier, shift=shift,
                             lhs_constant=data(lhs), rhs_constant=data(rhs),
                             step_kind=f"{KIND}_S16" if wide else KIND)


def macs(p: BatchMatMulParams) -> int:
    rows, depth, cols = p.dims
    return int(np.prod(p.batch, dtype=np.int64)) * rows * depth * cols


SPEC = OpSpec(KIND, kind_id=46, emit=emit, prepare=prepare, c_kernel="vmcu_batch_matmul_s8", arity=TWO_INPUTS,
              options="BatchMatMulOptions", macs=macs, activation_types=frozenset({"int16"}))
