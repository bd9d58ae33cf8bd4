"""SignalFilterBankSquareRoot (TFLite Micro's FilterBankSquareRootEval): each uint64 channel
energy's rounded integer square root, shifted right by a run-time int32 scalar (the FFT auto
scale's shift), as uint32.

The square root is the signal library's bit-by-bit one, rounded up when the remainder exceeds
the root (but never past 2**32 - 1 for a 64-bit input, 2**16 - 1 for a 32-bit one). The shift is
data: one outside 0..31 is undefined in TFLite Micro's C++ (a uint32 shifted by it), so the kernels
stop the run with an error instead of guessing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.signal import emit_square_root
from ..graph import Graph, Op
from .common import constant_inputs, require
from .signal_common import check_tensor, io_tensors
from .spec import OpSpec

KIND = "SignalFilterBankSquareRoot"


@dataclass(frozen=True, eq=False)
class SquareRootParams:
    channels: int
    constants: tuple[np.ndarray | None, ...]  # per operand: constant data, or None for an activation


def prepare(graph: Graph, op: Op) -> SquareRootParams:
    (x, shift), (out,) = io_tensors(graph, op, 2, 1)
    check_tensor(op, x, "input", "uint64")
    check_tensor(op, shift, "scale bits", "int32", rank=0)
    check_tensor(op, out, "output", "uint32")
    require(out.num_elements == x.num_elements, op,
            f"the output holds {out.num_elements} values for {x.num_elements} input channels")
    constants = constant_inputs(graph, op)
    if constants[1] is not None:  # a constant shift outside 0..31 would stop every run
        value = int(constants[1].reshape(-1)[0])
        require(0 <= value <= 31, op, f"its constant shift {value} is outside 0..31 (undefined in TFLite Micro)")
    return SquareRootParams(channels=x.num_elements, constants=constants)


SPEC = OpSpec(KIND, kind_id=55, emit=emit_square_root, prepare=prepare, c_kernel="vmcu_signal_filter_bank_square_root",
              arity=((2, 2), 1, frozenset()), custom=True, activation_types=frozenset({"uint64", "int32", "uint32"}))
