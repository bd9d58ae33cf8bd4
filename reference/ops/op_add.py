"""ADD reference kernel: TFLite's reference_integer_ops AddFunc, broadcast like numpy."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier_smaller_than_one_exp as scale_down
from ..fixed_point import wrap_int32
from .base import Kernel, with_constants


def broadcast_operands(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both operands as int64 arrays broadcast against each other (numpy's rules are TFLite's)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    return a, b


def scaled_operands(p, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both operands offset, shifted left and brought to twice the larger input scale."""
    scaled1 = scale_down((a + p.input1_offset) << p.left_shift, p.input1_multiplier, p.input1_shift)
    scaled2 = scale_down((b + p.input2_offset) << p.left_shift, p.input2_multiplier, p.input2_shift)
    return scaled1, scaled2


def to_output(p, raw: np.ndarray) -> np.ndarray:
    """The raw int32 sum (or difference) at the output scale, clamped."""
    raw_out = scale_down(wrap_int32(raw), p.output_multiplier, p.output_shift) + p.output_offset
    return np.clip(raw_out, p.act_min, p.act_max).astype(np.int8).reshape(p.output_shape)


class Add(Kernel):
    kind = "ADD"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        scaled1, scaled2 = scaled_operands(p, *broadcast_operands(*with_constants(p.constants, activations)))
        return to_output(p, scaled1 + scaled2)
