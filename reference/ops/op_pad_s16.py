"""PAD_S16 reference kernel: int16 elements surrounded by the pad value (TFLite's Pad for int16)."""
from __future__ import annotations

import numpy as np

from .base import Kernel


class PadS16(Kernel):
    kind = "PAD_S16"

    def run(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.pad(np.asarray(x, dtype=np.int16).reshape(p.input_shape), p.paddings,
                      constant_values=p.pad_value).astype(np.int16)
