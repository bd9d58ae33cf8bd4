"""DEQUANTIZE: int8 or int16 (a 16x8 model's) -> float32, real = scale * (q - zero_point) computed in
double, stored as float."""
from __future__ import annotations

from dataclasses import dataclass

from ..graph import Graph, Op
from .common import output, require, tensor
from .spec import ONE_INPUT, OpSpec

KIND = "DEQUANTIZE"


@dataclass(frozen=True)
class DequantizeParams:
    output_shape: tuple[int, ...]
    scale: float
    zero_point: int


def prepare(graph: Graph, op: Op) -> DequantizeParams:
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in ("int8", "int16"), op, f"input type {input_.dtype} is not supported (int8 or int16)")
    require(out.dtype == "float32", op, f"output type {out.dtype} is not supported (float32 only)")
    require(input_.quant is not None and not input_.quant.per_channel, op, "the input needs a per-tensor scale")
    require(input_.shape == out.shape, op, f"input shape {input_.shape} differs from output shape {out.shape}")
    return DequantizeParams(output_shape=out.shape, scale=input_.scale, zero_point=input_.zero_point)


SPEC = OpSpec(KIND, kind_id=None, emit=None, prepare=prepare, arity=ONE_INPUT, activation_types=frozenset({"int16"}))
