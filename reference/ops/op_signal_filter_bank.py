"""SignalFilterBank reference kernel: each table channel's weighted and unweighted sums of its
spectrum bins in uint64 (modulo 2**64); output c = channel c + 1's weighted sum plus channel c's
unweighted one."""
from __future__ import annotations

import numpy as np

from .base import Kernel


def _as_uint64(values: np.ndarray) -> np.ndarray:
    """int16 weights widened to uint64 as C converts them (a negative one wraps)."""
    return values.astype(np.int64).astype(np.uint64)


class SignalFilterBank(Kernel):
    kind = "SignalFilterBank"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        spectrum = x.reshape(-1).astype(np.uint64)
        weights, unweights = _as_uint64(p.weights), _as_uint64(p.unweights)
        weighted = np.zeros(p.num_channels + 1, dtype=np.uint64)
        unweighted = np.zeros(p.num_channels + 1, dtype=np.uint64)
        for i in range(p.num_channels + 1):
            width = int(p.widths[i])
            if width <= 0:
                continue
            bins = spectrum[int(p.frequency_starts[i]):int(p.frequency_starts[i]) + width]
            first = int(p.weight_starts[i])
            weighted[i] = np.sum(weights[first:first + width] * bins, dtype=np.uint64)
            unweighted[i] = np.sum(unweights[first:first + width] * bins, dtype=np.uint64)
        channels = weighted[1:] + unweighted[:-1]  # numpy's uint64 arithmetic wraps as C's does
        return channels[:p.output_size]
