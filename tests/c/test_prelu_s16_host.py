"""The INT16_PRELU C kernel on the host, sanitized, against the reference interpreter and TFLite
Micro: per-channel and single alphas, zero points, full-scale int16 inputs."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int16_prelu import prelu16_model
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

CASES = [([1, 6, 6, 8], np.array([-128, -50, -1, 0, 1, 30, 100, 127]), (0, 0, 0)),
         ([3, 5, 4], np.array([[[-7]]]), (12, -3, 5)),
         ([2, 3, 1, 4], np.array([[[5, -9, 64, -100]]]), (0, 2, 0))]


@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
@pytest.mark.parametrize("case", CASES, ids=[f"{len(c[0])}d-{c[1].size}" for c in CASES])
def test_prelu_s16(case, planner):
    shape, alpha, zero_points = case
    model = prelu16_model(shape, alpha, zero_points=zero_points)
    assert check_model(model, planner, SANITIZED_HOST, seed=61) == (True, True, 0)
