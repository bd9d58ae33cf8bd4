"""SignalFilterBankSquareRoot reference kernel: floor(sqrt(x)), plus one when x exceeds r*r + r
(the remainder is larger than the root) unless r is already the largest root the signal library's
routine returns (2**16 - 1 for an x below 2**32, else 2**32 - 1), shifted right by the scalar."""
from __future__ import annotations

from math import isqrt

import numpy as np

from .base import Kernel, with_constants


def rounded_sqrt(x: int) -> int:
    root = isqrt(x)
    top = 0xFFFF if x < (1 << 32) else 0xFFFFFFFF
    return root + 1 if x - root * root > root and root != top else root


class SignalFilterBankSquareRoot(Kernel):
    kind = "SignalFilterBankSquareRoot"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        x, shift = with_constants(self.params.constants, activations)
        shift = int(np.asarray(shift).reshape(-1)[0])
        if not 0 <= shift <= 31:
            from vmcu_tflite.errors import ArithmeticInputError  # here: vmcu_tflite's package imports these kernels

            raise ArithmeticInputError(f"SignalFilterBankSquareRoot: a shift of {shift}, outside 0..31 (undefined "
                                       "in TFLite Micro)")
        return np.array([rounded_sqrt(int(v)) >> shift for v in x.reshape(-1)], dtype=np.uint32)
