"""What the int8 functions of one input share (ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, TANH;
LOGISTIC shares the C kernel but checks its own tensors).

Each checks its tensors the same way, streams element by element, and runs in C as a 256-byte
table lookup (`vmcu_tflite/codegen/params/lookup.py`): an int8 output depends only on the input
byte, so whatever TFLite's arithmetic is, its table is exact and the kernel is one load a byte.
"""
from __future__ import annotations

from ..codegen.params.lookup import emit
from ..graph import Graph, Op, Tensor
from ..planner.access import same_shape
from .common import output, require, tensor
from .spec import ONE_INPUT, OpSpec, Prepare


def unary_tensors(graph: Graph, op: Op) -> tuple[Tensor, Tensor]:
    """The op's input and output: int8, per-tensor quantized, of one shape."""
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_.dtype == "int8" and out.dtype == "int8", op,
            f"{input_.dtype} -> {out.dtype} is not supported (int8 -> int8 only)")
    require(input_.shape == out.shape, op, f"input shape {input_.shape} differs from output shape {out.shape}")
    for name, t in (("input", input_), ("output", out)):
        require(t.quant is not None and not t.quant.per_channel, op, f"the {name} needs a per-tensor scale")
    return input_, out


def lookup_spec(kind: str, kind_id: int, prepare: Prepare, **fields) -> OpSpec:
    """The spec of a one-input int8 function: its table kernel, element-wise streaming, one input."""
    return OpSpec(kind, kind_id=kind_id, emit=emit, prepare=prepare, c_kernel="vmcu_lookup_s8", access=same_shape,
                  arity=ONE_INPUT, **fields)
