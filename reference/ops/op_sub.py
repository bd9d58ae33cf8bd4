"""SUB reference kernel: TFLite's reference_ops SubElementwise / BroadcastQuantSubSlow for int8."""
from __future__ import annotations

import numpy as np

from .base import Kernel, with_constants
from .op_add import broadcast_operands, scaled_operands, to_output


class Sub(Kernel):
    kind = "SUB"

    def run(self, *activations: np.ndarray) -> np.ndarray:
        p = self.params
        scaled1, scaled2 = scaled_operands(p, *broadcast_operands(*with_constants(p.constants, activations)))
        return to_output(p, scaled1 - scaled2)
