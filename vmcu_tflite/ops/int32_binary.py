"""int32 ADD, MUL, DIV, MAXIMUM and MINIMUM: one step kind for the integer arithmetic an audio front
end does on int32 tensors (TFLite Micro's reference_ops templates instantiated for int32_t).

As TFLite Micro runs them: the raw values (no quantization; ADD and DIV refuse quantized inputs,
MUL, MAXIMUM and MINIMUM ignore it), broadcast like numpy over up to 6 dimensions. ADD's result
wraps modulo 2**32 and its fused activation is not applied (its int32 path clamps to the whole
int32 range); MUL's product wraps (WrappingMul) and DIV's quotient truncates toward zero, then both
clamp to their fused activation's range (CalculateActivationRange: RELU [0, max], RELU_N1_TO_1
[-1, 1], RELU6 [0, 6]). TFLite Micro's DIV stops the run on a zero divisor; INT32_MIN / -1 is
undefined in C (TFLite Micro crashes on it): the kernels stop the run with an error on both.

The TFLite ops keep their specs (ADD, MUL, MAXIMUM, MINIMUM, DIV); their prepare returns
`Int32BinaryParams` for int32 tensors, and the step takes this kind (`step_kind`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.params.int32_binary import emit
from ..graph import Graph, Op, Tensor
from .common import constant_inputs, require, tensor, output
from .spec import OpSpec

KIND = "INT32_BINARY"
OPERATIONS = ("ADD", "MUL", "DIV", "MAXIMUM", "MINIMUM")  # the runtime's operation numbers, in this order
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
_CLAMPS = {0: (INT32_MIN, INT32_MAX), 1: (0, INT32_MAX), 2: (-1, 1), 3: (0, 6)}
_QUANTIZATION_REFUSED = ("ADD", "DIV")  # their Prepare requires unquantized int32 inputs


@dataclass(frozen=True, eq=False)
class Int32BinaryParams:
    operation: str  # one of OPERATIONS
    output_shape: tuple[int, ...]
    constants: tuple[np.ndarray | None, ...]  # per operand: constant data, or None for an activation
    act_min: int
    act_max: int
    step_kind: str = KIND


def is_int32(graph: Graph, op: Op) -> bool:
    """Whether the op works on int32 tensors (any of its inputs or its output)."""
    return any(t >= 0 and graph.tensors[t].dtype == "int32" for t in op.inputs + op.outputs[:1])


def prepare_int32(graph: Graph, op: Op, operation: str, max_rank: int = 6) -> Int32BinaryParams:
    from .add import check_binary_shapes  # shared rules; imported late: add imports this module

    require(len(op.inputs) == 2 and len(op.outputs) == 1, op, "expects two inputs and one output")
    a, b, out = tensor(graph, op, 0), tensor(graph, op, 1), output(graph, op)
    require(a is not None and b is not None, op, "an input is missing")
    for name, t in (("input 1", a), ("input 2", b), ("output", out)):
        require(t.dtype == "int32", op, f"{name} is {t.dtype}: an int32 {op.kind} needs int32 inputs and output")
    if operation in _QUANTIZATION_REFUSED:
        for name, t in (("input 1", a), ("input 2", b)):
            require(not _quantized(t), op, f"{name} is quantized: TFLite Micro's int32 {op.kind} takes raw integers")
    check_binary_shapes(op, a, b, out, max_rank)
    act = op.options.fused_activation_function if operation in ("MUL", "DIV") else 0
    require(act in _CLAMPS, op, f"fused activation {act} is not supported")
    act_min, act_max = _CLAMPS[act]
    return Int32BinaryParams(operation=operation, output_shape=out.shape, constants=constant_inputs(graph, op),
                             act_min=act_min, act_max=act_max)


def _quantized(t: Tensor) -> bool:
    """TFLite's affine quantization (the reader keeps a Quantization only when TFLite has one)."""
    return t.quant is not None


SPEC = OpSpec(KIND, kind_id=59, emit=emit, c_kernel="vmcu_binary_s32")
