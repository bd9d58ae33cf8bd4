"""ASSIGN_VARIABLE reference kernel: the value's bytes become the variable's; nothing is written
to the pool (no output)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class AssignVariable(Kernel):
    kind = "ASSIGN_VARIABLE"
    stateful = True

    def run(self, *value: np.ndarray, state) -> None:
        p = self.params
        source = p.constant if p.constant is not None else value[0]
        variable = state[p.variable]
        variable[...] = np.asarray(source, dtype=np.int8).reshape(variable.shape)
        return None
