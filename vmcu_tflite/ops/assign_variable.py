"""ASSIGN_VARIABLE: a value copied from the pool (or from flash, for a constant) into a resource
variable's bytes in the state region.

TFLite Micro copies the value into the variable where the op stands in the operator order, so a
READ_VARIABLE earlier in the same run got the old bytes (its own copy, in the pool) and a later
one gets these. The step writes nothing in the pool: it has no output, and its value stays live
until it runs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.variables import emit_assign
from ..graph import Graph, Op
from .common import require, tensor
from .spec import OpSpec

KIND = "ASSIGN_VARIABLE"


@dataclass(frozen=True, eq=False)
class AssignVariableParams:
    variable: int  # the variable tensor (its bytes in the state region)
    bytes: int
    constant: np.ndarray | None  # int8 bytes of a constant value, None for an activation


def prepare(graph: Graph, op: Op) -> AssignVariableParams:
    variable, value = tensor(graph, op, 0), tensor(graph, op, 1)
    require(variable is not None and variable.is_variable and variable.dtype == "int8", op,
            "only int8 resource variables are supported")
    require(value is not None and value.dtype == "int8" and value.num_bytes == variable.num_bytes, op,
            "its value must be int8 with the variable's bytes")
    constant = None
    if value.is_constant:
        constant = np.ascontiguousarray(value.data, dtype=np.int8).reshape(-1)
        constant.flags.writeable = False
    return AssignVariableParams(variable=variable.index, bytes=variable.num_bytes, constant=constant)


SPEC = OpSpec(KIND, kind_id=44, emit=emit_assign, prepare=prepare, c_kernel="vmcu_assign_variable_s8",
              arity=((2, 2), 0, frozenset()), options="AssignVariableOptions", state_inputs=frozenset({0}))
