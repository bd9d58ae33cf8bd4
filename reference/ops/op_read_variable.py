"""READ_VARIABLE reference kernel: the variable's bytes as they are now (a copy: a later
ASSIGN_VARIABLE must not change what this run already read)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class ReadVariable(Kernel):
    kind = "READ_VARIABLE"
    stateful = True

    def run(self, *, state) -> np.ndarray:
        p = self.params
        return np.array(state[p.variable], dtype=np.int8).reshape(p.output_shape)
