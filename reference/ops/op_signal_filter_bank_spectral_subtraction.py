"""SignalFilterBankSpectralSubtraction reference kernel, channel by channel in Python integers
masked to the C types' widths. The noise estimate is the step's state (zero after a reset), updated
in place; NOISE_ESTIMATE copies it out as the op's second output."""
from __future__ import annotations

import numpy as np

from .base import Kernel

U32, U64 = (1 << 32) - 1, (1 << 64) - 1


class SignalFilterBankSpectralSubtraction(Kernel):
    kind = "SignalFilterBankSpectralSubtraction"
    stateful = True

    def run(self, x: np.ndarray, *, state) -> np.ndarray:
        p = self.params
        noise = state[p.state].reshape(-1)
        out = np.zeros(p.num_channels, dtype=np.uint32)
        for i, value in enumerate(int(v) for v in x.reshape(-1)):
            odd = i % 2 == 1
            smoothing = p.alternate_smoothing if odd else p.smoothing
            keep = p.alternate_one_minus_smoothing if odd else p.one_minus_smoothing
            scaled = (value << p.smoothing_bits) & U32
            estimate = (((scaled * smoothing + int(noise[i]) * keep) & U64) >> p.spectral_subtraction_bits) & U32
            subtracted_estimate = min(estimate, scaled)
            noise[i] = subtracted_estimate if p.clamping else estimate
            floor = ((value * p.min_signal_remaining) >> p.spectral_subtraction_bits) & U32
            out[i] = max((scaled - subtracted_estimate) >> p.smoothing_bits, floor)
        return out

