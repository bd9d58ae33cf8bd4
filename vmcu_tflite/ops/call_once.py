"""CALL_ONCE: the initialisation subgraph's values copied into the resource variables, on the
first run only.

TFLite Micro runs the initialisation subgraph when CALL_ONCE is first invoked and never again,
not even after `Reset` (which refills the variables with their zero points). The subgraph was
evaluated when converting (`vmcu_tflite.resources`: it may only assign constants), so the step
copies those values from flash into the state region, where CALL_ONCE stands in the operator
order, when its flag word in the region is 0, then sets it (`vmcu_tflite.state`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.variables import emit_call_once
from ..graph import Graph, Op
from .common import require
from .spec import OpSpec

KIND = "CALL_ONCE"


@dataclass(frozen=True, eq=False)
class CallOnceParams:
    op: int  # the CALL_ONCE's operator index: its flag word (`state.flag_key`)
    values: tuple[tuple[int, np.ndarray], ...]  # (variable tensor, its int8 bytes), in assignment order


def prepare(graph: Graph, op: Op) -> CallOnceParams:
    values = []
    for t, data in op.options.get("initial", ()):
        variable = graph.tensors[t]
        require(variable.dtype == "int8" and data.size == variable.num_bytes, op,
                f"the initial value of '{variable.name}' is not int8 with its bytes")
        data = np.ascontiguousarray(data, dtype=np.int8)
        data.flags.writeable = False
        values.append((t, data))
    return CallOnceParams(op=op.index, values=tuple(values))


SPEC = OpSpec(KIND, kind_id=45, emit=emit_call_once, prepare=prepare, c_kernel="vmcu_call_once",
              arity=((0, 0), 0, frozenset()), options="CallOnceOptions")
