"""CONCATENATION reference kernel: a plain join along the axis (TFLite's reference Concatenation)."""
from __future__ import annotations

import numpy as np

from .base import Kernel, with_constants


class Concatenation(Kernel):
    kind = "CONCATENATION"
    join = staticmethod(np.concatenate)  # PACK stacks along a new axis instead

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        parts = [np.asarray(x, dtype=p.dtype) for x in with_constants(p.constants, activations)]
        return self.join(parts, axis=p.axis).reshape(p.output_shape)
