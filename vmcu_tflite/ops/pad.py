"""PAD: int8 constant padding on any of up to 5 dimensions, the pad value being the output zero point.

As in TFLite Micro, input bytes are copied unchanged (no requantization even when the input and
output quantization differ). int16 data (a 16x8 model's) is padded as bytes, each element a run of 2,
by the same kernel when its pad value is two equal bytes (0, the zero point a 16x8 model has, or -1);
with any other value it is a PAD_S16 step (`pad_s16`), whose kernel writes int16 elements.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

from ..codegen.params.pad import emit
from ..graph import Graph, Op
from .common import constant, output, require, tensor
from ..planner.access import AccessPattern, padded_rows
from .spec import TWO_INPUTS, OpSpec

if TYPE_CHECKING:
    from ..steps import Step

KIND = "PAD"
TYPES = ("int8", "int16")
MAX_DIMS = 5  # TFLite's PadKernelMaxDimensionCount


@dataclass(frozen=True)
class PadParams:
    input_shape: tuple[int, ...]
    output_shape: tuple[int, ...]
    paddings: tuple[tuple[int, int], ...]  # (before, after) per dimension
    pad_value: int
    element_bytes: int = 1  # 2 for int16: the kernel pads bytes, the innermost axis counted in them


def prepare(graph: Graph, op: Op, inputs: int = 2) -> PadParams:
    """PAD's (and PADV2's: `inputs` 3, its pad value set by the caller) shapes and paddings."""
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(len(op.inputs) == inputs and len(op.outputs) == 1, op,
            f"expects {inputs} inputs (data, paddings{', value' * (inputs == 3)}) and 1 output")
    require(input_.dtype in TYPES and out.dtype == input_.dtype, op,
            f"input type {input_.dtype} and output type {out.dtype}: int8 or int16, the same for both")
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
    # TFLite Micro pads with the output's zero point: 0 for an unquantized (int16) tensor
    require(out.quant is None or not out.quant.per_channel, op, "the output needs a per-tensor zero point")
    return PadParams(input_shape=input_.shape, output_shape=out.shape, paddings=pairs,
                     pad_value=out.zero_point if out.quant is not None else 0,
                     element_bytes=np.dtype(out.dtype).itemsize)


@dataclass(frozen=True)
class PadS16Params(PadParams):
    """An int16 pad whose value is not two equal bytes: the PAD_S16 step kind."""

    step_kind: str = "PAD_S16"


def check_pad_value(op: Op, params: PadParams) -> PadParams:
    """The byte kernel fills bytes: an int16 pad value of two unequal bytes goes to PAD_S16."""
    value = params.pad_value
    if params.element_bytes == 2 and (value & 0xFF) != (value >> 8) & 0xFF:
        require(-32768 <= value <= 32767, op, f"the pad value {value} is outside int16")
        return PadS16Params(**{f.name: getattr(params, f.name) for f in fields(PadParams)})
    return params


def prepare_pad(graph: Graph, op: Op) -> PadParams:
    return check_pad_value(op, prepare(graph, op))


def pad_access(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """Both PAD kernels (bytes, int16 elements) walk the output's rows along the innermost dimension
    in order, each row's input copied as it is written. Streamed only when the innermost dimension is
    not padded: a row is then the input's row alone, read before any byte of it is written (a row
    with pad around it writes pad before it copies)."""
    p = step.params
    if position != 0 or not p.input_shape or p.paddings[-1] != (0, 0):
        return None
    return padded_rows(p.input_shape, p.output_shape, [b for b, _ in p.paddings],
                       p.input_shape[-1] * p.element_bytes)


SPEC = OpSpec(KIND, kind_id=8, emit=emit, prepare=prepare_pad, c_kernel="vmcu_pad_s8", access=pad_access,
              arity=TWO_INPUTS, activation_types=frozenset({"int16"}), wraps=True)
