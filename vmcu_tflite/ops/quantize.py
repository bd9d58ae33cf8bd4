"""QUANTIZE: float32 -> int8 or int16 (affine quantization) or a requantization between integers.

TFLite Micro's Prepare needs a per-tensor output scale; float input uses the output's scale and
zero point directly, integer input gets the multiplier of input_scale / output_scale. Its Eval
requantizes int8 -> int8 (this kind's kernel), and int8 -> int16 or int32, int16 -> int8, int16 or
int32 (a 16x8 model's conversions: the REQUANTIZE step kind, `vmcu_tflite.ops.requantize`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.quantize import emit
from ..graph import Graph, Op
from ..planner.access import same_shape
from ..quant import quantize_multiplier
from .common import output, require, tensor
from .requantize import prepare_wide
from .spec import ONE_INPUT, OpSpec

KIND = "QUANTIZE"


@dataclass(frozen=True)
class QuantizeParams:
    input_dtype: str  # "float32" or "int8" (the other requantizations are REQUANTIZE steps)
    output_shape: tuple[int, ...]
    output_scale: float  # float -> int8: divide by this (float32 arithmetic)
    output_zero_point: int
    input_zero_point: int  # int8 -> int8 only (0 for float input)
    multiplier: int  # int8 -> int8: Q31 multiplier of input_scale / output_scale
    shift: int
    output_dtype: str = "int8"  # float -> int16 too (at the model's boundary)


def prepare(graph: Graph, op: Op) -> QuantizeParams:
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(out.dtype != "uint8", op, "a uint8 output is supported at the model's boundary only")
    require(out.dtype in ("int8", "int16", "int32"), op,
            f"output type {out.dtype} is not supported (int8, int16 or int32)")
    require(out.quant is not None and len(out.quant.scale) == 1, op, "the output needs a per-tensor scale")
    require(input_.dtype != "uint8", op, "a uint8 input is supported at the model's boundary only")
    require(input_.dtype in ("float32", "int8", "int16"), op,
            f"input type {input_.dtype} is not supported (float32, int8 or int16)")
    require(input_.shape == out.shape, op, f"input shape {input_.shape} differs from output shape {out.shape}")
    if input_.dtype == "float32":
        require(out.dtype != "int32", op, "float32 -> int32 is not supported (TFLite Micro quantizes float to int8 "
                "or int16)")
        return QuantizeParams(input_dtype="float32", output_shape=out.shape, output_scale=out.scale,
                              output_zero_point=out.zero_point, input_zero_point=0, multiplier=0, shift=0,
                              output_dtype=out.dtype)
    if input_.dtype != "int8" or out.dtype != "int8":
        return prepare_wide(graph, op)
    require(input_.quant is not None and not input_.quant.per_channel, op, "the int8 input needs a per-tensor scale")
    multiplier, shift = quantize_multiplier(input_.scale / out.scale)
    # The kernel shifts the int32 input left by `shift` before the high multiply; TFLite would
    # overflow int32 (undefined behaviour) beyond this, for scale ratios no real model has.
    require(shift <= 23, op, f"input/output scale ratio {input_.scale / out.scale:g} is too large")
    return QuantizeParams(input_dtype="int8", output_shape=out.shape, output_scale=out.scale,
                          output_zero_point=out.zero_point, input_zero_point=input_.zero_point,
                          multiplier=multiplier, shift=shift)


SPEC = OpSpec(KIND, kind_id=14, emit=emit, prepare=prepare, c_kernel="vmcu_quantize_s8", access=same_shape,
              arity=ONE_INPUT, activation_types=frozenset({"int16", "int32"}))
