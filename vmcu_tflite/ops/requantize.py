"""REQUANTIZE: the QUANTIZEs of a 16x8 model between integer types (int8 -> int16 or int32, int16 ->
int8, int16 or int32), as TFLite Micro's Eval runs them with reference Requantize.

Each element: MultiplyByQuantizedMultiplier(x - input zero point, multiplier, shift) + output zero
point, clamped to the output type; the multiplier and shift are QuantizeMultiplier of
input_scale / output_scale (in double), as its Prepare computes them. The QUANTIZE spec's prepare
hands such an op to this step kind; int8 -> int8 stays a QUANTIZE step (its kernel and tables are
unchanged). One runtime kernel walks any of these element sizes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.requantize import emit
from ..graph import Graph, Op
from ..quant import quantize_multiplier
from .common import output, require, tensor
from .spec import OpSpec

KIND = "REQUANTIZE"
INPUT_TYPES = ("int8", "int16")
OUTPUT_TYPES = {"int8": ("int16", "int32"), "int16": ("int8", "int16", "int32")}  # int8 -> int8 is QUANTIZE's


@dataclass(frozen=True)
class RequantizeParams:
    input_dtype: str
    output_dtype: str
    output_shape: tuple[int, ...]
    input_zero_point: int
    output_zero_point: int
    multiplier: int  # Q31 multiplier of input_scale / output_scale
    shift: int
    step_kind: str = KIND


def prepare_wide(graph: Graph, op: Op) -> RequantizeParams:
    """QUANTIZE's prepare for integer conversions other than int8 -> int8 (it has checked the shapes,
    the output's per-tensor scale and that both types are among TFLite Micro's)."""
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in INPUT_TYPES and out.dtype in OUTPUT_TYPES[input_.dtype], op,
            f"{input_.dtype} -> {out.dtype} is not supported (int8 -> int8, int16 or int32; int16 -> int8, int16 or "
            "int32)")
    require(input_.quant is not None and not input_.quant.per_channel, op,
            f"the {input_.dtype} input needs a per-tensor scale")
    multiplier, shift = quantize_multiplier(input_.scale / out.scale)
    # TFLite shifts (x - zero point) left as an int32 before the high multiply: beyond this bound it
    # would overflow (undefined behaviour), for scale ratios no real model has
    info = np.iinfo(input_.dtype)
    largest = max(abs(int(info.min) - input_.zero_point), abs(int(info.max) - input_.zero_point))
    require(shift <= 0 or largest << shift < 1 << 31, op,
            f"input/output scale ratio {input_.scale / out.scale:g} is too large")
    return RequantizeParams(input_dtype=input_.dtype, output_dtype=out.dtype, output_shape=out.shape,
                            input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                            multiplier=multiplier, shift=shift)


SPEC = OpSpec(KIND, kind_id=61, emit=emit, c_kernel="vmcu_requantize_s16")
