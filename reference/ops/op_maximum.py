"""MAXIMUM and MINIMUM reference kernels: the raw int8 values compared, broadcast like numpy."""
from __future__ import annotations

import numpy as np

from .base import Kernel, with_constants


class Maximum(Kernel):
    kind = "MAXIMUM"
    compare = staticmethod(np.maximum)

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        a, b = with_constants(p.constants, activations)
        return self.compare(a, b).astype(np.int8).reshape(p.output_shape)


class Minimum(Maximum):
    kind = "MINIMUM"
    compare = staticmethod(np.minimum)
