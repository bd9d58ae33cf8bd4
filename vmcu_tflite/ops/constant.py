"""CONSTANT: a model output computed only from constants, written into the pool at every run.

An SSD detector's anchor output is RESHAPE and TILE of constant tables joined by a CONCATENATION:
`vmcu_tflite.folding` computes it when converting, so no operator is left to make it. The
application still reads it where the plan puts the output, like any output, so one step copies
the folded bytes from flash into that place at each run (TFLite Micro recomputes them at each
run: the same bytes). Not a TFLite operator: the pass `passes.write_constant_outputs` makes it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.constant import emit
from ..errors import ModelError
from ..graph import Graph, Op, Options, Tensor
from .spec import OpSpec

KIND = "CONSTANT"


@dataclass(frozen=True, eq=False)
class ConstantParams:
    output_shape: tuple[int, ...]
    data: np.ndarray  # int8, the output's bytes in row-major order


def check_writable(tensor: Tensor, output: int) -> None:
    """Only int8 goes into the pool (a float32 or uint8 boundary converts from int8 outside it)."""
    if tensor.dtype != "int8" or tensor.data is None or tensor.data.shape != tensor.shape:
        raise ModelError(f"graph output {output} (tensor {tensor.index} '{tensor.name}') is a constant of type "
                         f"{tensor.dtype.upper()}; only int8 constant outputs are supported")


def constant_op(tensor: Tensor) -> Op:
    """The step's op: its output the (now pool) tensor, its data an option; it stands for the
    operators that computed the constant (the last one's index, the others folded)."""
    made_by = tensor.folded_from or (-1,)
    return Op(index=made_by[-1], kind=KIND, inputs=(), outputs=(tensor.index,),
              options=Options({"value": tensor.data}), folded=made_by[:-1])


def prepare(graph: Graph, op: Op) -> ConstantParams:
    out = graph.tensors[op.outputs[0]]
    data = np.ascontiguousarray(op.options["value"], dtype=np.int8).reshape(out.shape)
    data.flags.writeable = False
    return ConstantParams(output_shape=out.shape, data=data)


SPEC = OpSpec(KIND, kind_id=39, emit=emit, c_kernel="vmcu_constant_s8")
