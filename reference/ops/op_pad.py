"""PAD reference kernel: the input bytes surrounded by the pad value (no requantization)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class Pad(Kernel):
    kind = "PAD"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.pad(x.reshape(p.input_shape), p.paddings, constant_values=p.pad_value).astype(x.dtype)


class PadV2(Pad):
    kind = "PADV2"
