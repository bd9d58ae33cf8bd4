"""MAXIMUM and MINIMUM: TFLite Micro compares the raw int8 values, broadcasting up to 5-D, and
does not look at the quantization (the converter gives all three tensors the same)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.maximum import emit
from ..graph import Graph, Op
from ..planner.access import same_shape
from .add import binary_tensors
from .common import constant_inputs
from .int32_binary import Int32BinaryParams, is_int32, prepare_int32
from .spec import TWO_INPUTS, OpSpec

KIND = "MAXIMUM"
MAX_RANK = 5


@dataclass(frozen=True, eq=False)
class MaximumParams:
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per operand: constant data, or None for an activation


def prepare(graph: Graph, op: Op) -> MaximumParams | Int32BinaryParams:
    if is_int32(graph, op):
        return prepare_int32(graph, op, op.kind)  # TFLite Micro runs int32 operands up to 6-D
    _, _, out = binary_tensors(graph, op, MAX_RANK)
    return MaximumParams(output_shape=out.shape, constants=constant_inputs(graph, op))


SPEC = OpSpec(KIND, kind_id=23, emit=emit, prepare=prepare, c_kernel="vmcu_maximum_s8", access=same_shape,
              arity=TWO_INPUTS, activation_types=frozenset({"int32"}))
