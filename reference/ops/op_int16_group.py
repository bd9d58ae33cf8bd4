"""INT16_GROUP reference kernel: a group of int16 element-wise steps computes exactly what its members
compute one after another, each member being the interpreter's own kernel of its kind (INT16_SIGMOID,
INT16_UNARY, INT16_BINARY) with the params its single step has.

`run` walks the elements in the group's blocks and applies the members in order to each block;
`block` is that walk for one block from given operands, which the interpreter uses to replay the
step over the simulated pool (`reference/group_replay.py`): every external input element and every
block buffer is read from the pool where the C reads it.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .base import Kernel
from .op_int16_binary import Int16Binary
from .op_int16_sigmoid import Int16Sigmoid
from .op_int16_unary import Int16Unary

KERNELS = {"INT16_SIGMOID": Int16Sigmoid, "INT16_UNARY": Int16Unary, "INT16_BINARY": Int16Binary}


class Int16Group(Kernel):
    kind = "INT16_GROUP"

    def __init__(self, params) -> None:
        super().__init__(params)
        self._kernels: dict[tuple[int, int], Kernel] = {}

    def member(self, j: int, n: int) -> Kernel:
        """Member j's kernel over a block of `n` elements (a binary member's output shape is the block's)."""
        if (j, n) not in self._kernels:
            m = self.params.members[j]
            params = replace(m.params, output_shape=(n,)) if m.kind == "INT16_BINARY" else m.params
            self._kernels[j, n] = KERNELS[m.kind](params)
        return self._kernels[j, n]

    def block(self, j: int, operands: list[np.ndarray]) -> np.ndarray:
        """Member j on one block: `operands` int16 arrays of the block's length, in its operand order."""
        return np.asarray(self.member(j, operands[0].size).run(*operands), dtype=np.int16).reshape(-1)

    def run(self, *inputs: np.ndarray) -> np.ndarray:
        p = self.params
        flat = [np.asarray(x, dtype=np.int16).reshape(-1) for x in inputs]
        out = np.empty(p.size, dtype=np.int16)
        for start in range(0, p.size, p.block):
            end = min(start + p.block, p.size)
            buffers: dict[int, np.ndarray] = {}
            for j, m in enumerate(p.members):
                operands = [flat[-1 - s][start:end] if s < 0 else buffers[s] for s in m.sources]
                value = self.block(j, operands)
                if m.result >= 0:
                    buffers[m.result] = value
                else:
                    out[start:end] = value
        return out.reshape(np.shape(inputs[0]))
