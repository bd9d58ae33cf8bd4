"""SignalPCAN (TFLite Micro's PcanEval): per-channel automatic gain control of the filter bank's
energies by their noise estimates.

Each channel's gain is the wide dynamic function of its noise estimate, a piecewise quadratic
read from the int16 gain lookup table (the segment of the estimate's highest set bit, interpolated
over the next 10 bits, rounded, truncated to int16, then widened to uint32: a negative gain
wraps); the energy times the gain in uint64, shifted right by `snr_shift` and truncated to uint32,
is the SNR, and the output is its shrink (quadratic below 2 << 12, linear above).

The gain table must be a constant of at least 125 values, every entry a uint32 estimate can reach
(TFLite Micro does not check, and would read past a shorter one); `snr_shift` must be a shift a
uint64 takes (0..63).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.signal import emit_pcan
from ..graph import Graph, Op
from .common import require
from .signal_common import check_tensor, constant_table, io_tensors, signal_options
from .spec import OpSpec

KIND = "SignalPCAN"
LUT_SIZE = 4 * 32 - 3  # the wide dynamic function's segments over a uint32 (the signal library's table size)


@dataclass(frozen=True, eq=False)
class PcanParams:
    channels: int
    snr_shift: int
    gain_lut: np.ndarray  # int16, LUT_SIZE values


def prepare(graph: Graph, op: Op) -> PcanParams:
    (x, noise, lut), (out,) = io_tensors(graph, op, 3, 1)
    snr_shift = signal_options(op, {"snr_shift": "int"})["snr_shift"]
    check_tensor(op, x, "input", "uint32")
    check_tensor(op, noise, "noise estimate", "uint32")
    check_tensor(op, lut, "gain lookup table", "int16")
    check_tensor(op, out, "output", "uint32")
    table = constant_table(op, lut, "gain lookup table")
    require(table.size >= LUT_SIZE, op, f"the gain lookup table holds {table.size} values; a uint32 noise estimate "
                                        f"reads up to {LUT_SIZE}")
    require(not noise.is_constant, op, "a constant noise estimate is not supported")
    n = x.num_elements
    require(out.num_elements == n and noise.num_elements == n, op,
            f"input, noise estimate and output hold {n}, {noise.num_elements} and {out.num_elements} values")
    require(0 <= snr_shift <= 63, op, f"snr_shift {snr_shift} is outside 0..63")
    return PcanParams(channels=n, snr_shift=snr_shift, gain_lut=table[:LUT_SIZE].astype(np.int16))


SPEC = OpSpec(KIND, kind_id=57, emit=emit_pcan, prepare=prepare, c_kernel="vmcu_signal_pcan",
              arity=((3, 3), 1, frozenset()), custom=True, activation_types=frozenset({"uint32", "int16"}))
