"""LOG_SOFTMAX: int8 over the last axis (TFLite Micro's int8 path, beta 1). The output must have
scale 16/256 and zero point 127, as TFLite Micro checks. Prepare is SOFTMAX's Q5.26 input
scaling plus the reverse scaling TFLite uses to cut differences too small for the result
(PreprocessLogSoftmaxScalingExp)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.log_softmax import emit
from ..graph import Graph, Op
from ..quant import calculate_input_radius, preprocess_softmax_scaling, quantize_multiplier_smaller_than_one_exp
from .common import require
from .softmax import softmax_access
from .spec import ONE_INPUT, OpSpec
from .unary import unary_tensors

KIND = "LOG_SOFTMAX"
SCALED_DIFF_INTEGER_BITS = 5


@dataclass(frozen=True)
class LogSoftmaxParams:
    input_multiplier: int
    input_left_shift: int
    reverse_scaling_divisor: int
    reverse_scaling_shift: int  # <= 0
    diff_min: int


def prepare(graph: Graph, op: Op) -> LogSoftmaxParams:
    input_, out = unary_tensors(graph, op)
    require(np.float32(out.scale) == np.float32(16 / 256) and out.zero_point == 127, op,
            f"the output must have scale 16/256 and zero point 127 (has {out.scale:g}, {out.zero_point})")
    try:  # TFLite Micro aborts where these raise
        multiplier, left_shift = preprocess_softmax_scaling(1.0, input_.scale, SCALED_DIFF_INTEGER_BITS)
        if not 1 <= left_shift <= 31:
            raise ValueError(f"left shift {left_shift}")
        divisor, shift = quantize_multiplier_smaller_than_one_exp((1 << (31 - left_shift)) / float(multiplier))
    except ValueError:
        require(False, op, f"input scale {input_.scale:g} is outside what TFLite's log-softmax scaling handles")
    return LogSoftmaxParams(input_multiplier=multiplier, input_left_shift=left_shift, reverse_scaling_divisor=divisor,
                            reverse_scaling_shift=shift,
                            diff_min=-calculate_input_radius(SCALED_DIFF_INTEGER_BITS, left_shift))


SPEC = OpSpec(KIND, kind_id=35, emit=emit, prepare=prepare, c_kernel="vmcu_log_softmax_s8", access=softmax_access,
              arity=ONE_INPUT)
