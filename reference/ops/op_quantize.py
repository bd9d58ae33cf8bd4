"""QUANTIZE reference kernel: TFLite's AffineQuantize (float -> int8 or int16) and Requantize (int8 -> int8)."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier, wrap_int32
from .base import Kernel

_INT32_LIMIT = float(1 << 31)


def quantize_float(x: np.ndarray, scale: float, zero_point: int, dtype: str = "int8") -> np.ndarray:
    """float32 -> int8 (or int16: `dtype`) as TFLite: round(x / scale) + zero_point, clamped to the type.

    The division is in float32 (TFLite divides by the scale cast to float), the rounding is
    std::round (halves away from zero). Values whose rounded quotient is outside int32, and NaN,
    convert as x86's cvttss2si does (to INT32_MIN) before the zero point is added with int32
    wrap-around; finite inputs of sane magnitude never get there.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN are handled below, as TFLite does
        q = np.asarray(x, dtype=np.float32) / np.float32(scale)
    q64 = q.astype(np.float64)  # exact; adding 0.5 in float64 is exact too
    rounded = np.copysign(np.floor(np.abs(q64) + 0.5), q64)
    in_range = (rounded > -_INT32_LIMIT - 1) & (rounded < _INT32_LIMIT)  # False for NaN
    as_int = np.where(in_range, np.where(in_range, rounded, 0).astype(np.int64), -(1 << 31))
    info = np.iinfo(dtype)
    return np.clip(wrap_int32(as_int + zero_point), info.min, info.max).astype(dtype)


def requantize(x: np.ndarray, input_zero_point: int, multiplier: int, shift: int,
               output_zero_point: int) -> np.ndarray:
    """int8 -> int8 with another scale and zero point (TFLite's reference Requantize)."""
    scaled = multiply_by_quantized_multiplier(x.astype(np.int64) - input_zero_point, multiplier, shift)
    return np.clip(scaled + output_zero_point, -128, 127).astype(np.int8)


class Quantize(Kernel):
    kind = "QUANTIZE"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        if p.input_dtype == "float32":
            out = quantize_float(x, p.output_scale, p.output_zero_point, getattr(p, "output_dtype", "int8"))
        else:
            out = requantize(x, p.input_zero_point, p.multiplier, p.shift, p.output_zero_point)
        return out.reshape(p.output_shape)
