"""SignalRfft reference kernel: each row zero-padded to fft_length through kissfft's int16 real FFT."""
from __future__ import annotations

import numpy as np

from ..kissfft16 import Rfft
from .base import Kernel


class SignalRfft(Kernel):
    kind = "SignalRfft"

    def __init__(self, params) -> None:
        super().__init__(params)
        self.fft = Rfft(params.fft_length)

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        rows = np.asarray(x, dtype=np.int64).reshape(p.rows, p.input_length)
        out = np.zeros((p.rows, p.fft_length + 2), dtype=np.int16)
        for r, row in enumerate(rows):
            padded = [int(v) for v in row] + [0] * (p.fft_length - p.input_length)
            out[r] = np.array(self.fft(padded), dtype=np.int16).reshape(-1)
        return out.reshape(x.shape[:-1] + (p.fft_length + 2,))
