"""int16 PRELU (16x8 models): an INT16_PRELU step, as TFLite Micro runs it (prelu_common's
CalculatePreluParams, reference_ops BroadcastPrelu4DSlow with int16 data and int8 alpha).

x - zp >= 0 is rescaled by input / output scale, below it (x - zp) * (alpha - alpha zp) by input *
alpha / output scale, plus the output zero point, clamped to int16; alpha (int8, as TFLite Micro
requires for an int16 output) broadcasts against x up to 4-D. Only a constant alpha (Keras' PReLU
weights) is supported: it rides in the params; the input walks element by element.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.int16_prelu import emit
from ..graph import Graph, Op
from ..quant import quantize_multiplier
from .common import output, require, tensor
from .int16_common import check_int16, element_by_element
from .spec import OpSpec

KIND = "INT16_PRELU"
MAX_RANK = 4
IDENTITY_MAX_SHIFT = 14  # |x - zp| < 2**16 shifted left in int32
ALPHA_MAX_SHIFT = 6  # |(x - zp) * (alpha - zp)| < 2**24 shifted left in int32


@dataclass(frozen=True, eq=False)
class Int16PreluParams:
    output_shape: tuple[int, ...]
    alpha: np.ndarray  # int8 constant, broadcast against the input
    input_offset: int  # -zero point
    alpha_offset: int
    output_offset: int
    identity_multiplier: int
    identity_shift: int
    alpha_multiplier: int
    alpha_shift: int
    step_kind: str = KIND


def prepare_int16(graph: Graph, op: Op) -> Int16PreluParams:
    from .add import check_binary_shapes  # imported late: add imports the int16 modules

    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects two inputs and one output")
    x, alpha, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(x is not None and alpha is not None, op, "an input is missing")
    check_int16(op, (("input", x), ("output", out)), zero_point_zero=False)
    require(alpha.dtype == "int8", op, f"alpha is {alpha.dtype}: TFLite Micro's int16 PRELU needs an int8 alpha")
    require(alpha.quant is not None and not alpha.quant.per_channel, op, "alpha needs a per-tensor scale")
    require(alpha.is_constant, op, "an int16 PRELU's alpha must be a constant")
    require(not x.is_constant, op, "the input must be an activation")
    check_binary_shapes(op, x, alpha, out, MAX_RANK)
    require(out.shape == x.shape, op, f"output shape {out.shape} differs from input shape {x.shape}")
    m1, s1 = quantize_multiplier(float(x.scale) / float(out.scale))
    m2, s2 = quantize_multiplier(float(x.scale) * float(alpha.scale) / float(out.scale))
    require(s1 <= IDENTITY_MAX_SHIFT and s2 <= ALPHA_MAX_SHIFT, op,
            f"the output scale {out.scale:g} is too small for the input's {x.scale:g} (a left shift int32 overflows)")
    return Int16PreluParams(output_shape=out.shape, alpha=alpha.data, input_offset=-x.zero_point,
                            alpha_offset=-alpha.zero_point, output_offset=out.zero_point,
                            identity_multiplier=m1, identity_shift=s1, alpha_multiplier=m2, alpha_shift=s2)


SPEC = OpSpec(KIND, kind_id=74, emit=emit, c_kernel="vmcu_prelu_s16", access=element_by_element)
