"""SignalFilterBankLog (TFLite Micro's FilterBankLogEval): each uint32 channel's scaled natural
logarithm as int16.

The input is shifted left by `input_correction_bits` (uint32, wrapping); 0 and 1 give 0; above, the
signal library's fixed-point log: log2 in Q16 (the highest set bit, and the fraction below it
corrected by a 129-entry table, interpolated), times ln 2 (45426 / 2**16, rounded), times
`output_scale` (in uint32, wrapping) and rounded down to Q0, capped at 32767.

A correction shift outside 0..31 is undefined in TFLite Micro's C++ and refused.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.signal import emit_log
from ..graph import Graph, Op
from .common import require
from .signal_common import check_tensor, io_tensors, signal_options
from .spec import OpSpec

KIND = "SignalFilterBankLog"


@dataclass(frozen=True, eq=False)
class FilterBankLogParams:
    channels: int
    input_correction_bits: int
    output_scale: int  # uint32 (the option's int32 as the kernel multiplies it)


def prepare(graph: Graph, op: Op) -> FilterBankLogParams:
    (x,), (out,) = io_tensors(graph, op, 1, 1)
    o = signal_options(op, {"input_correction_bits": "int", "output_scale": "int"})
    check_tensor(op, x, "input", "uint32")
    check_tensor(op, out, "output", "int16")
    require(out.num_elements == x.num_elements, op,
            f"the output holds {out.num_elements} values for {x.num_elements} input channels")
    bits = o["input_correction_bits"]
    require(0 <= bits <= 31, op, f"input_correction_bits {bits} is outside 0..31")
    return FilterBankLogParams(channels=x.num_elements, input_correction_bits=bits,
                               output_scale=o["output_scale"] & 0xFFFFFFFF)


SPEC = OpSpec(KIND, kind_id=58, emit=emit_log, prepare=prepare, c_kernel="vmcu_signal_filter_bank_log",
              arity=((1, 1), 1, frozenset()), custom=True, activation_types=frozenset({"uint32", "int16"}))
