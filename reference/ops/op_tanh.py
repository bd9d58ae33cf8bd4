"""TANH reference kernel: TFLite's reference_integer_ops Tanh for int8 (gemmlowp fixed point).

LOGISTIC's path with gemmlowp's tanh: the Q0.31 result is brought to the 1/128 grid whatever
the output's quantization says.
"""
from __future__ import annotations

import numpy as np

from ..gemmlowp import tanh
from .base import Kernel
from .op_logistic import saturating_fixed_point


class Tanh(Kernel):
    kind = "TANH"

    def run(self, x: np.ndarray) -> np.ndarray:
        return saturating_fixed_point(self.params, x, tanh, output_bits=7, output_offset=0)
