"""The replay of an INT16_GROUP step over the simulated pool, in the order its C kernel works.

Block after block, each member in order: its operands are loaded from the pool (an external input's
elements of the block, or a block buffer in the step's workspace), the member's own reference kernel
computes the block from those bytes, and the result is stored in its block buffer, which must hold no
value a later member still reads; the last member stores the output element by element, each after
the external inputs' bytes up to that element are consumed (the C reads input element i for the last
time before it writes output element i). A plan whose output lands on input bytes still to be read,
or whose workspace lands on a live tensor, fails at the first such byte.
"""
from __future__ import annotations

import numpy as np

from vmcu_tflite.errors import HazardError

from .pool import Access, SimulatedPool


def _readers(members, j: int, buffer: int) -> int:
    """The last member after j that reads what member j leaves in `buffer` (j when none does)."""
    last = j
    for k in range(j + 1, len(members)):
        if buffer in members[k].sources:
            last = k
        if members[k].result == buffer:
            break
    return last


def replay_group(pool: SimulatedPool, kernel, external: list[tuple[Access, int, bool]], workspace: tuple[Access, int],
                 out_who: Access, out_base: int) -> np.ndarray:
    """`external`: (who, base, consumed) per external input, in the step's input order (`consumed`: it
    dies here, so its bytes are released as the step goes); `workspace`: who and base of the block
    buffers. Returns the output elements as stored."""
    p = kernel.params
    ws_who, ws_base = workspace
    stride = p.block * 2  # bytes of one block buffer
    out = np.empty(p.size, dtype=np.int16)
    freed = [0] * len(external)
    for start in range(0, p.size, p.block):
        n = min(p.block, p.size - start)
        live = {}  # block buffer -> the last member that reads its value
        for j, m in enumerate(p.members):
            operands = []
            for s in m.sources:
                who, base, at = (external[-1 - s][0], external[-1 - s][1], 2 * start) if s < 0 else (ws_who, ws_base,
                                                                                                      s * stride)
                operands.append(pool.load(who, base, at, 2 * n).view(np.int16))
            value = kernel.block(j, operands)
            if m.result >= 0:
                if live.get(m.result, j) > j:
                    raise HazardError(f"plan hazard: step {ws_who.step} ({ws_who.kernel}): member {j} writes block "
                                      f"buffer {m.result} while member {live[m.result]} still reads its value")
                pool.free(ws_who, ws_base, m.result * stride, 2 * n)
                pool.store(ws_who, ws_base, m.result * stride, value.view(np.int8))
                live[m.result] = _readers(p.members, j, m.result)
                continue
            for i in range(n):
                upto = 2 * (start + i + 1)
                for k, (who, base, consumed) in enumerate(external):
                    if consumed and upto > freed[k]:
                        pool.free(who, base, freed[k], upto - freed[k])
                        freed[k] = upto
                pool.store(out_who, out_base, 2 * (start + i), value[i:i + 1].view(np.int8))
            out[start:start + n] = value
    pool.free(ws_who, ws_base, 0, p.buffers * stride)
    return out
