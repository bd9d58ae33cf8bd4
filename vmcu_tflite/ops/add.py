"""ADD: int8 elementwise addition with numpy-style broadcasting and a fused activation.

As TFLite Micro's Prepare: both inputs are rescaled to twice the larger input scale with 20 bits
of headroom (left_shift), summed in int32, then brought to the output scale. Either operand may
be a constant; constants ride in the params.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.add import emit
from ..graph import Graph, Op, Tensor
from ..planner.access import same_shape
from ..quant import quantize_multiplier, quantize_multiplier_smaller_than_one_exp
from .common import constant_inputs, fused_activation, output, require, tensor
from .int16_binary import Int16BinaryParams, prepare_int16
from .int16_common import is_int16
from .int32_binary import Int32BinaryParams, is_int32, prepare_int32
from .spec import TWO_INPUTS, OpSpec

KIND = "ADD"
MAX_RANK = 6  # TFLite Micro's RuntimeShape holds at most 6 dimensions


@dataclass(frozen=True, eq=False)
class AddParams:
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per operand: constant data, or None for an activation
    left_shift: int
    input1_offset: int  # -zero point
    input1_multiplier: int
    input1_shift: int  # <= 0
    input2_offset: int
    input2_multiplier: int
    input2_shift: int
    output_offset: int  # output zero point
    output_multiplier: int
    output_shift: int  # <= 0
    act_min: int
    act_max: int


def _extended(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def check_binary_shapes(op: Op, a: Tensor, b: Tensor, out: Tensor, max_rank: int = MAX_RANK) -> None:
    """Shapes of a broadcasting elementwise op: same rules as numpy, output = the broadcast shape
    (`max_rank`: the most dimensions TFLite Micro's kernel for the op walks)."""
    rank = max(len(a.shape), len(b.shape), len(out.shape))
    require(rank <= max_rank, op, f"{rank}-D operands are not supported (at most {max_rank}-D)")
    try:
        broadcast = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        require(False, op, f"input shapes {a.shape} and {b.shape} do not broadcast")
    require(_extended(broadcast, rank) == _extended(out.shape, rank), op,
            f"output shape {out.shape} is not the broadcast of {a.shape} and {b.shape}")


def check_binary_types(op: Op, a: Tensor, b: Tensor, out: Tensor) -> None:
    for name, t in (("input 1", a), ("input 2", b), ("output", out)):
        require(t.dtype == "int8", op, f"{name} type {t.dtype} is not supported (int8 only)")
        require(t.quant is not None and not t.quant.per_channel, op, f"{name} needs a per-tensor scale")
        require(t.scale > 0, op, f"{name} scale {t.scale} is not positive")


def binary_tensors(graph: Graph, op: Op, max_rank: int = MAX_RANK) -> tuple[Tensor, Tensor, Tensor]:
    """The two inputs and the output of a broadcasting int8 op, checked."""
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects two inputs and one output")
    a, b, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(a is not None and b is not None, op, "an input is missing")
    check_binary_types(op, a, b, out)
    check_binary_shapes(op, a, b, out, max_rank)
    return a, b, out


def prepare(graph: Graph, op: Op, max_rank: int = MAX_RANK) -> AddParams | Int32BinaryParams | Int16BinaryParams:
    """ADD's (and SUB's: TFLite Micro computes the same params) scaling and clamp; an int32 ADD is
    `int32_binary`'s, an int16 ADD or SUB `int16_binary`'s."""
    if op.kind == KIND and is_int32(graph, op):
        return prepare_int32(graph, op, KIND)
    if is_int16(graph, op):
        return prepare_int16(graph, op, op.kind)
    a, b, out = binary_tensors(graph, op, max_rank)
    left_shift = 20
    twice_max_input_scale = 2.0 * max(a.scale, b.scale)
    real_output_multiplier = twice_max_input_scale / ((1 << left_shift) * out.scale)
    # TFLite aborts (QuantizeMultiplierSmallerThanOneExp) unless this multiplier is below one.
    require(real_output_multiplier < 1.0 and quantize_multiplier(real_output_multiplier)[1] <= 0, op,
            f"output scale {out.scale:g} is too small for input scales {a.scale:g} and {b.scale:g}")
    m1, s1 = quantize_multiplier_smaller_than_one_exp(a.scale / twice_max_input_scale)
    m2, s2 = quantize_multiplier_smaller_than_one_exp(b.scale / twice_max_input_scale)
    mo, so = quantize_multiplier_smaller_than_one_exp(real_output_multiplier)
    act_min, act_max = fused_activation(op, out)
    return AddParams(output_shape=out.shape, constants=constant_inputs(graph, op), left_shift=left_shift,
                     input1_offset=-a.zero_point, input1_multiplier=m1, input1_shift=s1,
                     input2_offset=-b.zero_point, input2_multiplier=m2, input2_shift=s2,
                     output_offset=out.zero_point, output_multiplier=mo, output_shift=so,
                     act_min=act_min, act_max=act_max)


SPEC = OpSpec(KIND, kind_id=3, emit=emit, prepare=prepare, c_kernel="vmcu_add_s8", access=same_shape, arity=TWO_INPUTS,
              options="AddOptions", activation_types=frozenset({"int32", "int16"}))
