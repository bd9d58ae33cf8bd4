"""INT16_BINARY reference kernel: int16 ADD, SUB and MUL as TFLite Micro's int16 kernels compute them
(reference_ops AddElementwise / SubElementwise with their int16 left shift, reference_integer_ops
MulElementwise), broadcast like numpy."""
from __future__ import annotations

import numpy as np

from ..fixed_point import multiply_by_quantized_multiplier
from ..fixed_point import multiply_by_quantized_multiplier_smaller_than_one_exp as scale_down
from ..fixed_point import wrap_int32
from .base import Kernel, with_constants


class Int16Binary(Kernel):
    kind = "INT16_BINARY"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        a, b = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in with_constants(p.constants, activations)))
        if p.operation == "MUL":
            raw = multiply_by_quantized_multiplier(wrap_int32((a + p.input1_offset) * (b + p.input2_offset)),
                                                   p.output_multiplier, p.output_shift)
        else:
            scaled1 = scale_down(wrap_int32((a + p.input1_offset) << p.left_shift), p.input1_multiplier, p.input1_shift)
            scaled2 = scale_down(wrap_int32((b + p.input2_offset) << p.left_shift), p.input2_multiplier, p.input2_shift)
            total = scaled1 + scaled2 if p.operation == "ADD" else scaled1 - scaled2
            raw = scale_down(wrap_int32(total), p.output_multiplier, p.output_shift)
        out = np.clip(raw + p.output_offset, p.act_min, p.act_max)
        return out.astype(np.int16).reshape(p.output_shape)
