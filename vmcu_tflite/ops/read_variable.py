"""READ_VARIABLE: a resource variable's bytes copied from the state region into the pool.

TFLite Micro's READ_VARIABLE copies the variable's bytes into its output where the op stands in
the operator order: before an ASSIGN_VARIABLE of the same run it gives the previous run's value,
after it the new one. The step does the same copy at the same place, so the planner treats its
output as any other step's (live until its last reader). The variable itself is a state tensor
(`vmcu_tflite.resources`, `vmcu_tflite.state`).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.variables import emit_read
from ..graph import Graph, Op
from .common import output, require, tensor
from .spec import OpSpec

KIND = "READ_VARIABLE"


@dataclass(frozen=True, eq=False)
class ReadVariableParams:
    variable: int  # the variable tensor (its bytes in the state region)
    bytes: int
    output_shape: tuple[int, ...]


def prepare(graph: Graph, op: Op) -> ReadVariableParams:
    variable, out = tensor(graph, op, 0), output(graph, op)
    require(variable is not None and variable.is_variable and variable.dtype == "int8", op,
            "only int8 resource variables are supported")
    require(out.dtype == "int8" and out.num_bytes == variable.num_bytes, op,
            f"its output has {out.num_bytes} bytes of {out.dtype.upper()}, the variable {variable.num_bytes} of INT8")
    return ReadVariableParams(variable=variable.index, bytes=variable.num_bytes, output_shape=out.shape)


SPEC = OpSpec(KIND, kind_id=43, emit=emit_read, prepare=prepare, c_kernel="vmcu_read_variable_s8",
              arity=((1, 1), 1, frozenset()), options="ReadVariableOptions", state_inputs=frozenset({0}))
