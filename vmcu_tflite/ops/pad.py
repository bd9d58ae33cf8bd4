"""PAD: int8 constant padding on any of up to 5 dimensions, the pad value being the output zero point.

As in TFLite Micro, input bytes are copied unchanged (no requantization even when the input and
output quantization differ).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.pad import emit
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from .spec import TWO_INPUTS, OpSpec

KIND = "PAD"
MAX_DIMS = 5  # TFLite's PadKernelMaxDimensionCount


@dataclass(frozen=True)
class PadParams:
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    paddings: tuple[tuple[int, int], ...]  # (before, after) per dimension
    pad_value: int


def prepare(graph: Graph, op: Op, inputs: int = 2) -> PadParams:
    """PAD's (and PADV2's: `inputs` 3, its pad value set by the caller) shapes and paddings."""
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(len(op.inputs) == inputs and len(op.outputs) == 1, op,
            f"expects {inputs} inputs (data, paddings{', value' * (inputs == 3)}) and 1 output")
    require(input_.dtype == "int8" and out.dtype == "int8", op, "only int8 data is supported")
    require(len(input_.shape) <= MAX_DIMS, op, f"inputs of more than {MAX_DIMS} dimensions are not supported")
    paddings_tensor = tensor(graph, op, 1)
    require(paddings_tensor is not None and paddings_tensor.dtype == "int32", op, "paddings must be int32")
    raw = constant(graph, op, 1, "paddings")
    rank = len(out.shape)
    require(raw.size == 2 * rank and len(input_.shape) == rank, op,
            f"paddings of shape {raw.shape} for a {len(input_.shape)}-D input and {rank}-D output")
    pairs = tuple((int(b), int(a)) for b, a in raw.reshape(rank, 2))
    require(all(b >= 0 and a >= 0 for b, a in pairs), op, "negative paddings are not supported")
    expected = tuple(d + b + a for d, (b, a) in zip(input_.shape, pairs))
    require(expected == tuple(out.shape), op, f"output shape {out.shape} != padded input shape {expected}")
    return PadParams(input_shape=input_.shape, output_shape=out.shape, paddings=pairs, pad_value=out.zero_point)


SPEC = OpSpec(KIND, kind_id=8, emit=emit, prepare=prepare, c_kernel="vmcu_pad_s8", arity=TWO_INPUTS)
