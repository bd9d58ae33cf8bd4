"""CONCATENATION: int8 tensors joined along one axis (negative axes count from the end).

TFLite Micro copies bytes and does not requantize: its Prepare requires every int8 input to have
the output's scale and zero point, no fused activation, at most 10 inputs of at most 6-D.
Constant inputs ride in the params. int16 and int32 tensors (an audio front end's zero padding of
its spectrum) are joined the same way, each row a run of bytes; they are not requantized (TFLite
Micro requires int16 inputs and output to have zero point 0, any scales), and their step keeps its
output apart from its inputs (whole tensors).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.concatenation import emit
from ..graph import Graph, Op
from ..planner.access import AccessPattern, concatenation
from .common import constant_inputs, output, require, tensor
from .spec import OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "CONCATENATION"
TYPES = ("int8", "int16", "int32")
MAX_INPUTS = 10
MAX_RANK = 6


@dataclass(frozen=True, eq=False)
class ConcatenationParams:
    axis: int  # non-negative
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per input: constant data, or None for an activation
    dtype: str = "int8"  # of every operand and the output


def prepare(graph: Graph, op: Op) -> ConcatenationParams:
    require(1 <= len(op.inputs) <= MAX_INPUTS and len(op.outputs) == 1, op,
            f"expects 1 to {MAX_INPUTS} inputs and one output")
    require(op.options.fused_activation_function == 0, op, "a fused activation is not supported")
    out = output(graph, op)
    inputs = [tensor(graph, op, i) for i in range(len(op.inputs))]
    require(all(t is not None for t in inputs), op, "an input is missing")
    rank = len(out.shape)
    require(1 <= rank <= MAX_RANK, op, f"{rank}-D tensors are not supported (1-D to {MAX_RANK}-D)")
    axis = op.options.axis
    axis = axis + rank if axis < 0 else axis
    require(0 <= axis < rank, op, f"axis {op.options.axis} is out of range for {rank}-D tensors")
    for i, t in enumerate([*inputs, out]):
        name = "output" if i == len(inputs) else f"input {i}"
        require(t.dtype in TYPES, op, f"{name} type {t.dtype} is not supported (int8, int16 or int32)")
        require(t.dtype == out.dtype, op, f"{name} type {t.dtype} is not the output's {out.dtype}")
        require(t.dtype != "int8" or t.quant is not None and not t.quant.per_channel, op,
                f"{name} needs a per-tensor scale")
        require(t.dtype != "int16" or t.quant is None or t.quant.zero_point[0] == 0, op,
                f"{name}'s int16 zero point must be 0, not {t.quant.zero_point[0] if t.quant else 0}")
    for i, t in enumerate(inputs):
        if t.dtype == "int8":
            require(t.scale == out.scale and t.zero_point == out.zero_point, op,
                    f"input {i} is quantized ({t.scale:g}, {t.zero_point}) unlike the output "
                    f"({out.scale:g}, {out.zero_point}); TFLite Micro does not requantize")
        require(len(t.shape) == rank and all(t.shape[d] == out.shape[d] for d in range(rank) if d != axis), op,
                f"input {i} shape {t.shape} does not match output shape {out.shape} off axis {axis}")
    require(sum(t.shape[axis] for t in inputs) == out.shape[axis], op,
            f"the inputs' sizes along axis {axis} do not add up to the output's {out.shape[axis]}")
    return ConcatenationParams(axis=axis, output_shape=out.shape, constants=constant_inputs(graph, op),
                               dtype=out.dtype)


def concatenation_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    p = step.params
    if p.dtype != "int8":
        return None  # whole tensors: the pattern counts elements as bytes
    activations = iter(graph.tensors[t].shape for t in step.inputs)
    shapes = [next(activations) if c is None else c.shape for c in p.constants]
    operand = [i for i, c in enumerate(p.constants) if c is None][position]  # position among all operands
    if step.inputs.count(step.inputs[position]) > 1:
        return None  # the same tensor concatenated twice: not worth a pattern of its own
    outer = int(np.prod(p.output_shape[:p.axis], dtype=np.int64))
    inner = [int(np.prod(s[p.axis:], dtype=np.int64)) for s in shapes]
    return concatenation(outer, inner[operand], sum(inner), sum(inner[:operand]))


SPEC = OpSpec(KIND, kind_id=10, emit=emit, prepare=prepare, c_kernel="vmcu_concatenation_s8",
              access=concatenation_access, arity=((1, 10), 1, frozenset()), options="ConcatenationOptions",
              activation_types=frozenset(TYPES) - {"int8"})
