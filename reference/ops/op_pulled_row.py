"""PULLED_ROW reference kernel: the UNPACK part the pulled row stands for, cut from the whole input
(the step's kernel description pulls the row; its bytes must equal this)."""
from __future__ import annotations

import numpy as np

from .base import Kernel
from .op_unpack import Unpack


class PulledRow(Kernel):
    kind = "PULLED_ROW"

    def run(self, x: np.ndarray) -> np.ndarray:
        return Unpack(self.params.part).run(x)
