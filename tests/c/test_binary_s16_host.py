"""The INT16_BINARY C kernel on the host, sanitized, against the reference interpreter and TFLite
Micro: ADD, SUB and MUL with broadcasts over several ranks, constant operands on either side, zero
points and fused activations, full-scale int16 inputs."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int16_binary import binary16_model
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

CASES = [
    ("ADD", [2, 1, 5], [3, 1], [2, 3, 5], (0.001, 0.0007, 0.002), 1, None, (0, 0, 0), False),
    ("ADD", [3, 4], [4], [3, 4], (0.01, 0.003, 0.02), 0, None, (5, -300, 7), False),
    ("SUB", [4, 1, 1, 3], [1, 2, 3], [4, 1, 2, 3], (1 / 4096, 1 / 1024, 1 / 2048), 3, None, (0, 0, 0), False),
    ("SUB", [2, 4], [4], [2, 4], (0.5, 0.25, 1.0), 0, np.array([-32768, 32767, 5, -5], np.int16), (0, 0, 0), True),
    ("MUL", [2, 3, 4], [4], [2, 3, 4], (2 ** -15, 2 ** -15, 2 ** -15), 0, np.array([-32768, 32767, 3, -9], np.int16),
     (0, 0, 0), False),
    # a constant scalar operand (scaled once by the kernel's run of pointers), after and before the activation
    ("ADD", [2, 4], [1], [2, 4], (0.01, 0.02, 0.03), 0, np.array([1234], np.int16), (3, -2, 1), False),
    ("SUB", [3, 4], [1], [3, 4], (0.5, 0.25, 1.0), 0, np.array([-7], np.int16), (0, 0, 0), True),
    ("MUL", [1, 2, 1, 2, 1, 3], [1, 2, 1, 1, 3], [1, 2, 2, 2, 1, 3], (0.01, 0.02, 0.5), 2, None, (0, 0, 0), False),
]


@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{len(c[3])}d-{i}" for i, c in enumerate(CASES)])
def test_binary_s16(case, planner):
    kind, shape_a, shape_b, shape_out, scales, act, constant, zero_points, first = case
    model = binary16_model(kind, shape_a, shape_b, shape_out, scales, act, constant=constant, zero_points=zero_points,
                           constant_first=first)
    assert check_model(model, planner, SANITIZED_HOST, seed=21) == (True, True, 0)
