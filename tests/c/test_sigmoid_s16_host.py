"""The INT16_SIGMOID C kernel on the host, sanitized, against the reference interpreter and TFLite
Micro: LOGISTIC and TANH over every int16 input at power-of-two and general input scales."""
from __future__ import annotations

import shutil

import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int16_sigmoid import sigmoid16_model
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


@pytest.mark.parametrize("kind", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("input_scale", [2 ** -12, 2 ** -11, 1e-3, 3.7e-5, 2.6], ids=lambda s: f"{s:g}")
def test_sigmoid_s16(kind, input_scale):
    model = sigmoid16_model(kind, [2, 4096], input_scale)
    assert check_model(model, "vmcu", SANITIZED_HOST, seed=31) == (True, True, 0)
