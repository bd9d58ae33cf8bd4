"""int16 RELU, RELU6 and LEAKY_RELU (16x8 models): one INT16_UNARY step kind, as TFLite Micro runs
them (activations_common / activations.h, leaky_relu_common / reference_ops QuantizeLeakyRelu).

All three are out = clamp(output zero point + rescale(x - input zero point), lo, hi), each rescale
TFLite's MultiplyByQuantizedMultiplier:
- RELU: the input/output scale ratio (divided in double, as TFLite Micro's activations_common does) for
  every value, clamped to [quantized 0, 32767]; TFLite Micro requires zero points of 0.
- RELU6: no rescale at all (TFLite Micro ignores the output's quantization): the raw input clamped
  between the input's zero point and its quantized 6.
- LEAKY_RELU: the identity ratio (divided in double, as the int8 path's) for values at or above the zero point, alpha
  times it below (a negative alpha multiplier applied to the magnitude, then negated), clamped to int16.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.int16_unary import emit
from ..graph import Graph, Op
from ..quant import quantize, quantize_multiplier
from .common import output, require, tensor
from .int16_common import element_by_element, INT16_MAX, INT16_MIN, check_int16
from .spec import OpSpec

KIND = "INT16_UNARY"
OPERATIONS = ("RELU", "RELU6", "LEAKY_RELU")  # the runtime's operation numbers, in this order
MAX_SHIFT = 14  # |x - zero point| < 2**16 is shifted left in int32 first; the rescaled value stays below 2**30


@dataclass(frozen=True, eq=False)
class Int16UnaryParams:
    operation: str  # one of OPERATIONS
    size: int  # elements
    input_offset: int  # the input zero point, subtracted
    output_offset: int  # the output zero point, added
    identity_multiplier: int  # RELU, LEAKY_RELU
    identity_shift: int
    alpha_multiplier: int  # LEAKY_RELU, may be negative
    alpha_shift: int
    act_min: int
    act_max: int
    step_kind: str = KIND


def _multiplier(op: Op, real: float, what: str) -> tuple[int, int]:
    multiplier, shift = quantize_multiplier(real)
    require(shift <= MAX_SHIFT, op, f"the {what} rescale ({real:.3g}) needs a left shift of {shift} "
                                    f"(at most {MAX_SHIFT} for int16 values)")
    return multiplier, shift


def prepare_int16(graph: Graph, op: Op, operation: str, alpha: float | None = None) -> Int16UnaryParams:
    """`alpha`: LEAKY_RELU's, read by its own prepare."""
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_ is not None, op, "the input is missing")
    check_int16(op, (("input", input_), ("output", out)), zero_point_zero=operation == "RELU")
    require(input_.num_elements == out.num_elements, op,
            f"input shape {input_.shape} and output shape {out.shape} differ in size")
    in_scale, out_scale = np.float32(input_.scale), np.float32(out.scale)
    fields = dict(operation=operation, size=out.num_elements, input_offset=input_.zero_point,
                  output_offset=out.zero_point, identity_multiplier=0, identity_shift=0, alpha_multiplier=0,
                  alpha_shift=0)
    if operation == "RELU6":
        try:
            six = quantize(6.0, input_.scale, input_.zero_point)
        except ValueError:
            six = None
        require(six is not None, op, f"input scale {input_.scale:g} is too small to represent 6")
        return Int16UnaryParams(**fields, act_min=min(INT16_MAX, max(INT16_MIN, input_.zero_point)),
                                act_max=min(INT16_MAX, max(INT16_MIN, six)))
    # the ratio divided in double, as TFLite Micro's build computes activations_common's and leaky_relu_common's
    ratio = float(in_scale) / float(out_scale)
    identity = _multiplier(op, ratio, "identity")
    fields.update(identity_multiplier=identity[0], identity_shift=identity[1])
    if operation == "RELU":
        act_min = max(INT16_MIN, out.zero_point + int(np.round(np.float32(0.0) / out_scale)))
        return Int16UnaryParams(**fields, act_min=act_min, act_max=INT16_MAX)
    require(np.isfinite(np.float32(alpha)), op, f"alpha {alpha} is not finite")  # as the int8 path refuses it
    a = _multiplier(op, float(in_scale) * float(np.float32(alpha)) / float(out_scale), "alpha")
    require(a[0] != -(1 << 31), op, f"alpha {alpha:g} rounds to a multiplier of -1")
    return Int16UnaryParams(**dict(fields, alpha_multiplier=a[0], alpha_shift=a[1]), act_min=INT16_MIN,
                            act_max=INT16_MAX)


SPEC = OpSpec(KIND, kind_id=73, emit=emit, c_kernel="vmcu_unary_s16", access=element_by_element)
