"""NOISE_ESTIMATE reference kernel: a spectral subtraction's noise estimate, its state, copied out as
the op's second output (see op_signal_filter_bank_spectral_subtraction)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class NoiseEstimate(Kernel):
    kind = "NOISE_ESTIMATE"
    stateful = True

    def run(self, after: np.ndarray, *, state) -> np.ndarray:
        """`after`: the op's first output, read only to run after it."""
        return state[self.params.state].reshape(-1).copy()
