"""The INT16_SOFTMAX C kernel on the host, sanitized, against the reference interpreter and TFLite
Micro: rows of several lengths, input scales and betas, full-scale int16 inputs."""
from __future__ import annotations

import shutil

import pytest

from tests.c.c_validate import check_model
from tests.ops.test_op_int16_softmax import softmax16_model
from vmcu_tflite.validate.targets import SANITIZED_HOST

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")

CASES = [([1, 10], 1e-3, 1.0), ([4, 3, 33], 3e-5, 1.0), ([2, 200], 10 / 65535, 0.5), ([7], 0.05, 2.0)]


@pytest.mark.parametrize("case", CASES, ids=[f"{'x'.join(map(str, c[0]))}-{c[1]:g}" for c in CASES])
def test_softmax_s16(case):
    shape, scale, beta = case
    assert check_model(softmax16_model(shape, scale, beta), "vmcu", SANITIZED_HOST, seed=41) == (True, True, 0)
