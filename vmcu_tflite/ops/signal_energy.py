"""SignalEnergy (TFLite Micro's signal library): the energy re^2 + im^2 of the int16 (real, imag)
pairs start_index to end_index - 1, as uint32 (the int32 sum wraps for (-32768, -32768), as there).

TFLite Micro leaves the other output elements as they were in its arena; here they are 0, so the
output is the same whatever ran before (a model reads only [start, end), as micro_speech's slices it).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.signal import emit_energy
from ..graph import Graph, Op
from .common import require
from .signal_common import int_option, typed
from .spec import OpSpec

KIND = "SignalEnergy"
KEYS = ("end_index", "start_index")  # Init reads them by position: 0 and 1


@dataclass(frozen=True)
class EnergyParams:
    size: int  # output elements
    start: int
    end: int


def prepare(graph: Graph, op: Op) -> EnergyParams:
    x = typed(graph, op, 0, "int16", "input")
    y = typed(graph, op, 0, "uint32", "output", output_=True)
    start, end = int_option(op, "start_index", KEYS), int_option(op, "end_index", KEYS)
    require(len(x.shape) == 1 and len(y.shape) == 1, op,
            f"input shape {x.shape}, output shape {y.shape}: TFLite Micro requires both 1-D")
    require(0 <= start <= end <= min(y.num_elements, x.num_elements // 2), op,
            f"bins {start} to {end} are outside its {x.num_elements // 2} input pairs or {y.num_elements} outputs")
    return EnergyParams(size=y.num_elements, start=start, end=end)


SPEC = OpSpec(KIND, kind_id=51, emit=emit_energy, prepare=prepare, c_kernel="vmcu_signal_energy",
              arity=((1, 1), 1, frozenset()), custom=True, activation_types=frozenset({"int16", "uint32"}))
