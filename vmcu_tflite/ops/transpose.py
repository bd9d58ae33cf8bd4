"""TRANSPOSE: int8 permutation of up to 5 axes, the permutation a constant int32 input. int16 tensors (a
16x8 model's) are permuted as runs of their 2 bytes, the strided copy walking an innermost axis over an
element's bytes: up to 4 axes then (the copy walks at most 5)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.strided_copy import emit_transpose
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "TRANSPOSE"
TYPES = ("int8", "int16")
MAX_RANK = 5  # TFLite Micro's Prepare limit


@dataclass(frozen=True)
class TransposeParams:
    perm: tuple[int, ...]
    output_shape: tuple[int, ...]
    element_bytes: int = 1  # 2 for int16

    @property
    def input_shape(self) -> tuple[int, ...]:
        shape = [0] * len(self.perm)
        for axis, source in enumerate(self.perm):
            shape[source] = self.output_shape[axis]
        return tuple(shape)


def prepare(graph: Graph, op: Op) -> TransposeParams:
    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects an input, a permutation and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype in TYPES and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
    rank = len(input_.shape)
    size = np.dtype(input_.dtype).itemsize
    most = MAX_RANK if size == 1 else MAX_RANK - 1
    require(1 <= rank <= most, op, f"{rank}-D {input_.dtype} input is not supported (1-D to {most}-D)")
    perm_tensor = tensor(graph, op, 1)
    require(perm_tensor is not None and perm_tensor.dtype == "int32" and perm_tensor.shape == (rank,), op,
            f"the permutation must be an int32 tensor of shape ({rank},)")
    perm = tuple(int(v) for v in constant(graph, op, 1, "the permutation"))
    require(sorted(perm) == list(range(rank)), op, f"{perm} is not a permutation of {rank} axes")
    expected = tuple(input_.shape[d] for d in perm)
    require(out.shape == expected, op, f"output shape {out.shape} does not match the permuted {expected}")
    return TransposeParams(perm=perm, output_shape=out.shape, element_bytes=size)


SPEC = OpSpec(KIND, kind_id=13, emit=emit_transpose, prepare=prepare, c_kernel="vmcu_strided_copy_s8",
              arity=TWO_INPUTS, activation_types=frozenset({"int16"}))
