"""HARD_SWISH: int16 multipliers for the output and the "reluish" branch, from float32 scales
(TFLite Micro's HardSwishPrepare: QuantizeMultiplier, then DownScaleInt32ToInt16Multiplier)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import Graph, Op
from ..quant import quantize_multiplier
from .common import require
from .unary import lookup_spec, unary_tensors

KIND = "HARD_SWISH"
INT32_MAX = (1 << 31) - 1


@dataclass(frozen=True)
class HardSwishParams:
    input_zero_point: int
    output_zero_point: int
    output_multiplier: int  # Q0.15
    output_exponent: int
    reluish_multiplier: int  # Q0.15
    reluish_exponent: int


def int16_multiplier(multiplier: int) -> int:
    """TFLite's DownScaleInt32ToInt16Multiplier: the Q0.31 multiplier rounded to Q0.15."""
    if multiplier >= INT32_MAX - (1 << 15):
        return (1 << 15) - 1
    return (multiplier + (1 << 15)) >> 16


def prepare(graph: Graph, op: Op) -> HardSwishParams:
    input_, out = unary_tensors(graph, op)
    hires_input_scale = np.float32(1.0 / 128.0) * np.float32(input_.scale)
    output_multiplier, output_exponent = quantize_multiplier(float(hires_input_scale / np.float32(out.scale)))
    require(output_exponent <= 0, op, f"input scale {input_.scale:g} is too large for the output scale {out.scale:g}")
    reluish_scale = np.float32(3.0) / np.float32(32768.0)
    reluish_multiplier, reluish_exponent = quantize_multiplier(float(hires_input_scale / reluish_scale))
    require(reluish_exponent <= 30, op, f"input scale {input_.scale:g} is too large (TFLite's shift overflows)")
    return HardSwishParams(input_zero_point=input_.zero_point, output_zero_point=out.zero_point,
                           output_multiplier=int16_multiplier(output_multiplier), output_exponent=output_exponent,
                           reluish_multiplier=int16_multiplier(reluish_multiplier), reluish_exponent=reluish_exponent)


SPEC = lookup_spec(KIND, 21, prepare)
