"""The INT32_BINARY C kernel on the host, sanitized (UBSan would catch a signed overflow), against
the reference interpreter and TFLite Micro: every operation with broadcasts over several ranks,
constant operands on either side and each fused activation; the inputs are uniform int32s, so sums
and products overflow."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int32_binary import binary_model
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

CASES = [
    ("ADD", [2, 1, 5], [3, 1], [2, 3, 5], 1, None),
    ("MUL", [4, 1, 1, 3], [1, 2, 3], [4, 1, 2, 3], 3, None),
    ("MUL", [2, 3, 4], [4], [2, 3, 4], 2, np.array([3, -5, 1 << 20, -(1 << 31)], np.int32)),
    ("DIV", [3, 5], [5], [3, 5], 1, np.array([7, -3, 666, -(1 << 31), 2], np.int32)),
    ("DIV", [6], [6], [6], 0, None),
    ("MAXIMUM", [1, 2, 1, 2, 1, 3], [1, 2, 1, 1, 3], [1, 2, 2, 2, 1, 3], 0, None),
    ("MINIMUM", [5, 1], [], [5, 1], 0, np.array(-7, np.int32)),
]


def constant_first(kind: str) -> bytes:
    """The constant as the first operand (the kernel reads the activation as its only input)."""
    b = ModelBuilder()
    x, out = b.tensor([2, 4], "int32"), b.tensor([2, 4], "int32")
    b.op(kind, [b.const(np.array([[1, -2, 3, -(1 << 31)]] * 2, np.int32)), x], [out], fused_activation_function=0)
    b.inputs, b.outputs = [x], [out]
    return b.build()


@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{len(c[3])}d" for c in CASES])
def test_binary_s32(case, planner):
    kind, shape_a, shape_b, shape_out, act, constant = case
    model = binary_model(kind, shape_a, shape_b, shape_out, act, constant=constant)
    assert check_model(model, planner, SANITIZED_HOST, seed=11) == (True, True, 0)


@pytest.mark.parametrize("kind", ["ADD", "MUL"])
def test_constant_first_operand(kind):
    assert check_model(constant_first(kind), "vmcu", SANITIZED_HOST, seed=12) == (True, True, 0)
