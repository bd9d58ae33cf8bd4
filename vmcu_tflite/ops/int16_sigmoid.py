"""int16 LOGISTIC and TANH (16x8 models): one INT16_SIGMOID step kind, as TFLite Micro runs them.

Both read one table of the sigmoid (`sigmoid_table`) with linear interpolation between its entries
(reference_integer_ops Logistic / Tanh: tanh(x) = 2 * sigmoid(2x) - 1, so TANH reads the same table
at twice the resolution). The input is first brought to the table's scale of 1/(3 * 4096) per step:
TFLite Micro's Prepare (logistic_common / tanh.cc) takes a power-of-two input scale of exactly 2^-12
(LOGISTIC) or 2^-12 / 2^-11 (TANH) as the multiplier 3 << shift, and any other scale as a 15-bit
multiplier (the scale times 3 * 4096, doubled until above 32767 / 2, truncated) and a right shift.
It requires zero points of 0 and an output scale of 2^-15 (within CheckedLog2's tolerance).

The table: 256 samples of 65536 * sigmoid(i / 24), each lowered by half the error linear
interpolation makes at the middle of its interval (the curve is concave there, so the chord sits
below it), rounded; the last entry is the saturated 65535. These are exactly the values TFLite's
kernels use; the converter computes them and the step carries them in flash.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..codegen.params.int16_sigmoid import emit
from ..graph import Graph, Op
from ..quant import tflite_round
from .common import output, require, tensor
from .int16_common import element_by_element, check_int16, checked_log2
from .spec import OpSpec

KIND = "INT16_SIGMOID"
OPERATIONS = ("LOGISTIC", "TANH")  # the runtime's operation numbers, in this order
INPUT_INTEGER_BITS = 3
OUTPUT_FRACTIONAL_BITS = 15


@dataclass(frozen=True, eq=False)
class Int16SigmoidParams:
    operation: str  # one of OPERATIONS
    size: int  # elements
    input_multiplier: int  # <= 32767, the power-of-two case already as 3 << shift
    input_left_shift: int  # a right shift, despite TFLite's name: 0..31
    table: tuple[int, ...]  # sigmoid_table(): 256 uint16 values
    step_kind: str = KIND


def sigmoid_table() -> tuple[int, ...]:
    """65536 * sigmoid(i / 24) for i < 255 with half the midpoint interpolation error taken off,
    then the saturated 65535."""
    def f(x: float) -> float:
        return 65536.0 / (1.0 + math.exp(-x / 24.0))

    values = [int(tflite_round(f(i) - ((f(i) + f(i + 1)) / 2.0 - f(i + 0.5)) / 2.0)) for i in range(255)]
    return tuple(values) + (65535,)


def prepare_int16(graph: Graph, op: Op, operation: str) -> Int16SigmoidParams:
    require(len(op.inputs) == 1 and len(op.outputs) == 1, op, "expects one input and one output")
    input_, out = tensor(graph, op, 0), output(graph, op)
    require(input_ is not None, op, "the input is missing")
    check_int16(op, (("input", input_), ("output", out)), zero_point_zero=True)
    require(input_.num_elements == out.num_elements, op,
            f"input shape {input_.shape} and output shape {out.shape} differ in size")
    log2_out, pot_out = checked_log2(out.scale)
    require(pot_out and log2_out == -OUTPUT_FRACTIONAL_BITS, op,
            f"output scale {out.scale:g} is not 2^-15 (TFLite Micro's int16 {op.kind} requires it)")
    log2_in, pot = checked_log2(input_.scale)
    left_shift = (15 - INPUT_INTEGER_BITS) + log2_in
    pot = pot and left_shift in ((0,) if operation == "LOGISTIC" else (0, 1))
    if pot:
        multiplier, left_shift = 3 << left_shift, 0
    else:
        real = input_.scale * 4096.0 * 3.0
        left_shift = 0
        while real <= 32767.0 / 2.0 and left_shift <= 30:
            left_shift += 1
            real *= 2.0
        multiplier = int(real)
    # TFLite only DCHECKs this; above it the int32 product of the input could overflow
    require(multiplier <= 32767, op, f"input scale {input_.scale:g} is too large (at most {32767 / 12288:.4g})")
    return Int16SigmoidParams(operation=operation, size=out.num_elements, input_multiplier=multiplier,
                              input_left_shift=left_shift, table=sigmoid_table())


SPEC = OpSpec(KIND, kind_id=71, emit=emit, c_kernel="vmcu_sigmoid_s16", access=element_by_element)
