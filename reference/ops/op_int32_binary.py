"""INT32_BINARY reference kernel: int32 ADD, MUL, DIV, MAXIMUM, MINIMUM as TFLite Micro's int32
reference ops compute them, in int64 then wrapped to int32, broadcast like numpy."""
from __future__ import annotations

import numpy as np

from ..fixed_point import wrap_int32
from .base import Kernel, with_constants

INT32_MIN = -(1 << 31)


def truncated_quotient(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C's integer division: the quotient rounded toward zero."""
    from vmcu_tflite.errors import ArithmeticInputError  # here: vmcu_tflite's package imports these kernels

    if np.any(b == 0):
        raise ArithmeticInputError("an int32 DIV by zero (TFLite Micro stops the run)")
    if np.any((a == INT32_MIN) & (b == -1)):
        raise ArithmeticInputError("an int32 DIV of -2**31 by -1 (undefined in C)")
    magnitude = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -magnitude, magnitude)


class Int32Binary(Kernel):
    kind = "INT32_BINARY"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        a, b = np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in with_constants(p.constants, activations)))
        raw = {"ADD": lambda: a + b, "MUL": lambda: a * b, "DIV": lambda: truncated_quotient(a, b),
               "MAXIMUM": lambda: np.maximum(a, b), "MINIMUM": lambda: np.minimum(a, b)}[p.operation]()
        return np.clip(wrap_int32(raw), p.act_min, p.act_max).astype(np.int32).reshape(p.output_shape)
