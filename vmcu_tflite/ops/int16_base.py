"""What the int16 kernels of the base ops (pools, MEAN) share: the fused activation's clamp in the int16
domain (TFLite's CalculateActivationRangeQuantized for an int16 output: the same formulas as int8's,
clamped to -32768..32767)."""
from __future__ import annotations

from ..graph import Op, Tensor
from ..quant import ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1, quantize
from .common import require

INT16_MIN, INT16_MAX = -32768, 32767


def activation_range_16(op: Op, out: Tensor) -> tuple[int, int]:
    """The clamp of the op's fused activation (NONE, RELU, RELU_N1_TO_1, RELU6) for an int16 output."""
    act = op.options.fused_activation_function
    require(act in (ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6), op, f"fused activation {act} is not supported")
    bounds = {ACT_NONE: (None, None), ACT_RELU: (0.0, None), ACT_RELU6: (0.0, 6.0), ACT_RELU_N1_TO_1: (-1.0, 1.0)}[act]
    try:
        low = INT16_MIN if bounds[0] is None else max(INT16_MIN, quantize(bounds[0], out.scale, out.zero_point))
        high = INT16_MAX if bounds[1] is None else min(INT16_MAX, quantize(bounds[1], out.scale, out.zero_point))
    except ValueError:
        require(False, op, f"output scale {out.scale:g} is too small for its fused activation's bounds")
    return low, high
