"""int16 ADD, SUB and MUL (16x8 models): one INT16_BINARY step kind, as TFLite Micro runs them.

ADD and SUB (add_common/sub_common, then reference_ops AddElementwise / SubElementwise and their
broadcast forms, the general-scale path: TFLite Micro never takes the power-of-two one): ADD's int8
arithmetic with a left shift of 15 instead of 20 (65535 << 15 still sums in int32), any zero
points, the scale ratios in double. MUL (mul_common):
(x1 - zp1) * (x2 - zp2) in int32 times QuantizeMultiplier(s1 * s2 / s_out); TFLite Micro requires
int16 zero points of 0. The clamp is the fused activation's in the int16 domain.

The TFLite ops keep their specs; their prepare returns `Int16BinaryParams` for int16 tensors, and
the step takes this kind (`step_kind`). The kernel walks the whole tensor (output apart).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.int16_binary import emit
from ..graph import Graph, Op, Tensor
from ..quant import quantize, quantize_multiplier, quantize_multiplier_smaller_than_one_exp
from .common import constant_inputs, output, require, tensor
from .int16_common import element_by_element, INT16_MAX, INT16_MIN, check_int16
from .spec import OpSpec

KIND = "INT16_BINARY"
OPERATIONS = ("ADD", "SUB", "MUL")  # the runtime's operation numbers, in this order
LEFT_SHIFT = 15  # add_common / sub_common for an int16 output
MAX_RANK = {"ADD": 6, "SUB": 5, "MUL": 6}  # BroadcastAdd6DSlow, BroadcastQuantSubSlow, BroadcastMul6DSlow


@dataclass(frozen=True, eq=False)
class Int16BinaryParams:
    operation: str  # one of OPERATIONS
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per operand: constant int16 data, or None for an activation
    left_shift: int  # ADD/SUB: 15; MUL: 0
    input1_offset: int  # -zero point
    input1_multiplier: int  # ADD/SUB only
    input1_shift: int
    input2_offset: int
    input2_multiplier: int
    input2_shift: int
    output_offset: int
    output_multiplier: int
    output_shift: int  # ADD/SUB <= 0; MUL <= 0 too (see prepare)
    act_min: int
    act_max: int
    step_kind: str = KIND


def int16_activation_range(op: Op, out: Tensor) -> tuple[int, int]:
    """The clamp of the op's fused activation in the int16 output's domain (TFLite's
    CalculateActivationRangeQuantized for an int16 output: int8's rounding, bounded by -32768..32767)."""
    act = op.options.fused_activation_function
    require(act in (0, 1, 2, 3), op, f"fused activation {act} is not supported")
    try:
        lo, hi = {0: (None, None), 1: (0.0, None), 2: (-1.0, 1.0), 3: (0.0, 6.0)}[act]
        return (INT16_MIN if lo is None else max(INT16_MIN, quantize(lo, out.scale, out.zero_point)),
                INT16_MAX if hi is None else min(INT16_MAX, quantize(hi, out.scale, out.zero_point)))
    except ValueError:
        require(False, op, f"output scale {out.scale:g} is too small for its fused activation's bounds")


def prepare_int16(graph: Graph, op: Op, operation: str) -> Int16BinaryParams:
    from .add import check_binary_shapes  # imported late: add imports this module

    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects two inputs and one output")
    a, b, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(a is not None and b is not None, op, "an input is missing")
    check_int16(op, (("input 1", a), ("input 2", b), ("output", out)), zero_point_zero=operation == "MUL")
    check_binary_shapes(op, a, b, out, MAX_RANK[operation])
    if operation != "MUL":  # TFLite's AddElementwise / SubElementwise bound the offsets so
        for name, t in (("input 1", a), ("input 2", b)):
            require(abs(t.zero_point) < 32767, op, f"{name} zero point {t.zero_point} is outside (-32767, 32767)")
    act_min, act_max = int16_activation_range(op, out)
    common = dict(operation=operation, output_shape=out.shape, constants=constant_inputs(graph, op),
                  input1_offset=-a.zero_point, input2_offset=-b.zero_point, output_offset=out.zero_point,
                  act_min=act_min, act_max=act_max)
    if operation == "MUL":
        real = a.scale * b.scale / out.scale
        multiplier, shift = quantize_multiplier(real)
        # |x1 * x2| reaches 2**30: TFLite shifts it left by `shift` in int32 first, which overflows above 0
        require(shift <= 0, op, f"scale ratio {real:g} is 1 or more: TFLite's int16 MUL would overflow int32")
        return Int16BinaryParams(**common, left_shift=0, input1_multiplier=0, input1_shift=0, input2_multiplier=0,
                                 input2_shift=0, output_multiplier=multiplier, output_shift=shift)
    # in double for SUB too, as the TFLite Micro build the tests run computes it (sub_common's source
    # divides in float32; a 16x8 fixture's SUB tells the two apart)
    twice = 2.0 * max(a.scale, b.scale)
    real1, real2 = a.scale / twice, b.scale / twice
    real_out = twice / ((1 << LEFT_SHIFT) * out.scale)
    require(real_out < 1.0 and quantize_multiplier(real_out)[1] <= 0, op,
            f"output scale {out.scale:g} is too small for input scales {a.scale:g} and {b.scale:g}")
    m1, s1 = quantize_multiplier_smaller_than_one_exp(real1)
    m2, s2 = quantize_multiplier_smaller_than_one_exp(real2)
    mo, so = quantize_multiplier_smaller_than_one_exp(real_out)
    return Int16BinaryParams(**common, left_shift=LEFT_SHIFT, input1_multiplier=m1, input1_shift=s1,
                             input2_multiplier=m2, input2_shift=s2, output_multiplier=mo, output_shift=so)


SPEC = OpSpec(KIND, kind_id=70, emit=emit, c_kernel="vmcu_binary_s16", access=element_by_element)
