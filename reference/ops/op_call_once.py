"""CALL_ONCE reference kernel: on the first run (its flag word 0) the initialisation values become
the variables' bytes and the flag is set; afterwards it does nothing, a reset included."""
from __future__ import annotations

import numpy as np

from vmcu_tflite.state import flag_key

from .base import Kernel


class CallOnce(Kernel):
    kind = "CALL_ONCE"
    stateful = True

    def run(self, *, state) -> None:
        p = self.params
        flag = state[flag_key(p.op)]
        if flag[0] != 0:
            return None
        for t, data in p.values:
            state[t][...] = np.asarray(data, dtype=np.int8).reshape(state[t].shape)
        flag[0] = 1
        return None
