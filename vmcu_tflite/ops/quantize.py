"""QUANTIZE: float32 -> int8 (affine quantization) or int8 -> int8 (requantization).

TFLite Micro's Prepare needs a per-tensor output scale; float input uses the output's scale and
zero point directly, int8 input gets the multiplier of input_scale / output_scale.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.quantize import emit
from ..graph import Graph, Op
from ..planner.access import same_shape
from ..quant import quantize_multiplier
from .common import output, require, tensor
from .spec import ONE_INPUT, OpSpec

KIND = "QUANTIZE"


@dataclass(frozen=True)
class QuantizeParams:
    input_dtype: str  # "float32" or "int8"
    output_shape: tuple[int, ...]
    output_scale: float  # float -> int8: divide by this (float32 arithmetic)
    output_zero_point: int
    input_zero_point: int  # int8 -> int8 only (0 for float input)
    multiplier: int  # int8 -> int8: Q31 multiplier of input_scale / output_scale
    shift: int


def prepare(graph: Graph, op: Op) -> QuantizeParams:
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(out.dtype != "uint8", op, "a uint8 output is supported at the model's boundary only")
    require(out.dtype == "int8", op, f"output type {out.dtype} is not supported (int8 only)")
    require(out.quant is not None and len(out.quant.scale) == 1, op, "the output needs a per-tensor scale")
    require(input_.dtype != "uint8", op, "a uint8 input is supported at the model's boundary only")
    require(input_.dtype in ("float32", "int8"), op, f"input type {input_.dtype} is not supported (float32 or int8)")
    require(input_.shape == out.shape, op, f"input shape {input_.shape} differs from output shape {out.shape}")
    if input_.dtype == "float32":
        return QuantizeParams(input_dtype="float32", output_shape=out.shape, output_scale=out.scale,
                              output_zero_point=out.zero_point, input_zero_point=0, multiplier=0, shift=0)
    require(input_.quant is not None and not input_.quant.per_channel, op, "the int8 input needs a per-tensor scale")
    multiplier, shift = quantize_multiplier(input_.scale / out.scale)
    # The kernel shifts the int32 input left by `shift` before the high multiply; TFLite would
    # overflow int32 (undefined behaviour) beyond this, for scale ratios no real model has.
    require(shift <= 23, op, f"input/output scale ratio {input_.scale / out.scale:g} is too large")
    return QuantizeParams(input_dtype="int8", output_shape=out.shape, output_scale=out.scale,
                          output_zero_point=out.zero_point, input_zero_point=input_.zero_point,
                          multiplier=multiplier, shift=shift)


SPEC = OpSpec(KIND, kind_id=14, emit=emit, prepare=prepare, c_kernel="vmcu_quantize_s8", access=same_shape,
              arity=ONE_INPUT)
