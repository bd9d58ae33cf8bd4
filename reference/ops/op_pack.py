"""PACK reference kernel: the inputs stacked along a new axis, bytes as they are (TFLite Micro's Pack)."""
from __future__ import annotations

import numpy as np

from .op_concatenation import Concatenation


class Pack(Concatenation):
    kind = "PACK"
    join = staticmethod(np.stack)
