"""The INT16_UNARY C kernel on the host, sanitized, against the reference interpreter and TFLite Micro:
RELU, RELU6 and LEAKY_RELU over every int16 input, with rescales, zero points and negative alphas."""
from __future__ import annotations

import shutil

import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int16_unary import CASES, unary16_model
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_unary_s16(case):
    kind, scales, zero_points, alpha = case
    model = unary16_model(kind, [8, 4096], scales, zero_points, alpha)
    assert check_model(model, "vmcu", SANITIZED_HOST, seed=51) == (True, True, 0)
