"""STRIDED_SLICE, SPLIT and SPLIT_V reference kernels: numpy slices from each axis's first index,
step and count (TFLite's reference StridedSlice loop, and TFLite Micro's Split)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class StridedSlice(Kernel):
    kind = "STRIDED_SLICE"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        index = tuple(np.arange(count) * step + begin for begin, step, count in zip(p.begin, p.steps, p.counts))
        return x[np.ix_(*index)].reshape(p.output_shape)


class Split(StridedSlice):
    kind = "SPLIT"


class SplitV(StridedSlice):
    kind = "SPLIT_V"
