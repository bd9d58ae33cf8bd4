"""MUL: int8 elementwise product with numpy-style broadcasting and a fused activation.

As TFLite Micro: (x1 - zp1) * (x2 - zp2) in int32, times one Q31 multiplier of
scale1 * scale2 / output_scale. Either operand may be a constant; constants ride in the params.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.mul import emit
from ..graph import Graph, Op
from ..planner.access import same_shape
from ..quant import quantize_multiplier
from .add import check_binary_shapes, check_binary_types
from .common import constant_inputs, fused_activation, output, require, tensor
from .int16_binary import Int16BinaryParams, prepare_int16
from .int16_common import is_int16
from .int32_binary import Int32BinaryParams, is_int32, prepare_int32
from .spec import TWO_INPUTS, OpSpec

KIND = "MUL"


@dataclass(frozen=True, eq=False)
class MulParams:
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per operand: constant data, or None for an activation
    input1_offset: int  # -zero point
    input2_offset: int
    output_offset: int  # output zero point
    output_multiplier: int
    output_shift: int
    act_min: int
    act_max: int


def prepare(graph: Graph, op: Op) -> MulParams | Int32BinaryParams | Int16BinaryParams:
    if is_int32(graph, op):
        return prepare_int32(graph, op, KIND)
    if is_int16(graph, op):
        return prepare_int16(graph, op, KIND)
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects two inputs and one output")
    a, b, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(a is not None and b is not None, op, "an input is missing")
    check_binary_types(op, a, b, out)
    check_binary_shapes(op, a, b, out)
    multiplier, shift = quantize_multiplier(a.scale * b.scale / out.scale)
    # The product (below 2**16 in magnitude) is shifted left by `shift` in int32 first.
    require(shift <= 15, op, f"scale ratio {a.scale * b.scale / out.scale:g} is too large")
    act_min, act_max = fused_activation(op, out)
    return MulParams(output_shape=out.shape, constants=constant_inputs(graph, op),
                     input1_offset=-a.zero_point, input2_offset=-b.zero_point, output_offset=out.zero_point,
                     output_multiplier=multiplier, output_shift=shift, act_min=act_min, act_max=act_max)


SPEC = OpSpec(KIND, kind_id=4, emit=emit, prepare=prepare, c_kernel="vmcu_mul_s8", access=same_shape, arity=TWO_INPUTS,
              options="MulOptions", activation_types=frozenset({"int32", "int16"}))
