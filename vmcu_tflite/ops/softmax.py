"""SOFTMAX: int8 -> int8 over the last axis with gemmlowp's fixed-point exp (TFLite Micro's path).

The output must be quantized with scale 1/256 and zero point -128, as TFLite Micro checks.
Prepare turns beta * input_scale into a Q5.26 multiplier and the cut-off `diff_min` below which
an element's exp counts as zero.

TFLite Micro aborts at run time when a row's sum of exps reaches 2**28 / 2**19 = 512 times the
largest exp (e.g. 512 or more elements tied at the row maximum); the kernel raises then.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.softmax import emit
from ..graph import Graph, Op
from ..planner.access import AccessPattern, elementwise
from ..quant import calculate_input_radius, preprocess_softmax_scaling
from .common import output, require, tensor
from .int16_common import is_int16
from .int16_softmax import Int16SoftmaxParams, prepare_int16
from .spec import ONE_INPUT, OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "SOFTMAX"
SCALED_DIFF_INTEGER_BITS = 5


@dataclass(frozen=True)
class SoftmaxParams:
    input_multiplier: int
    input_left_shift: int
    diff_min: int


def prepare(graph: Graph, op: Op) -> SoftmaxParams | Int16SoftmaxParams:
    if is_int16(graph, op):  # an INT16_SOFTMAX step
        return prepare_int16(graph, op)
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype == "int8" and out.dtype == "int8", op,
            f"{input_.dtype} -> {out.dtype} is not supported (int8 -> int8 only)")
    require(len(input_.shape) >= 1 and input_.shape == out.shape, op,
            f"input shape {input_.shape} and output shape {out.shape} must be equal and at least 1-D")
    require(input_.quant is not None and not input_.quant.per_channel, op, "the input needs a per-tensor scale")
    require(out.quant is not None and out.zero_point == -128 and np.float32(out.scale) == np.float32(1.0 / 256), op,
            f"the output must have scale 1/256 and zero point -128 (has {out.scale:g}, {out.zero_point})")
    beta = float(np.float32(op.options.beta))
    real = beta * input_.scale * float(1 << (31 - SCALED_DIFF_INTEGER_BITS))
    # TFLite aborts (QuantizeMultiplierGreaterThanOne) unless beta * scale * 2**26 exceeds one.
    require(real > 1.0, op, f"beta {beta:g} times input scale {input_.scale:g} is too small")
    multiplier, left_shift = preprocess_softmax_scaling(beta, input_.scale, SCALED_DIFF_INTEGER_BITS)
    diff_min = -calculate_input_radius(SCALED_DIFF_INTEGER_BITS, left_shift)
    return SoftmaxParams(input_multiplier=multiplier, input_left_shift=left_shift, diff_min=diff_min)


def softmax_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """A row per output segment (SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION): a row is read whole
    before any of its outputs is written."""
    y = graph.tensors[step.outputs[0]]
    return elementwise(y.num_bytes, y.shape[-1]) if segment == y.shape[-1] else None


SPEC = OpSpec(KIND, kind_id=9, emit=emit, prepare=prepare, c_kernel="vmcu_softmax_s8", access=softmax_access,
              arity=ONE_INPUT, options="SoftmaxOptions", options_required=True,
              activation_types=frozenset({"int16"}))
