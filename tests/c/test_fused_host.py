"""The fused C kernels (inverted bottlenecks, chains) against the reference on random cases (host build)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings

from tests.planner.test_chains import chained_program, chains
from tests.planner.test_chains16 import chains16
from tests.planner.test_fusion import blocks
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.validate.run import build_and_run
from vmcu_tflite.validate.targets import SANITIZED_HOST


@settings(max_examples=4, deadline=None)
@given(blocks())
def test_fused_c_kernel_matches_reference(case):
    model, data, _ = case
    program = chained_program(model)
    expected = Interpreter(program).run([data]).raw_outputs[0].reshape(-1)
    with tempfile.TemporaryDirectory() as work:
        status, outputs, _ = build_and_run(program, [data], SANITIZED_HOST, Path(work))
    assert status == 0
    np.testing.assert_array_equal(outputs[0], expected)


@settings(max_examples=4, deadline=None)
@given(chains(most=4))
def test_chain_c_kernel_matches_reference(case):
    model, data, _ = case
    program = chained_program(model, recompute=len(model) % 2 == 0)  # half of them recompute where they can
    expected = Interpreter(program).run([data]).raw_outputs[0].reshape(-1)
    with tempfile.TemporaryDirectory() as work:
        status, outputs, _ = build_and_run(program, [data], SANITIZED_HOST, Path(work))
    assert status == 0
    np.testing.assert_array_equal(outputs[0], expected)


@settings(max_examples=4, deadline=None)
@given(chains16())
def test_int16_chain_c_kernel_matches_reference(case):
    """A chain of 16x8 layers: the C of its int16 rings, pixels and pool sums, built sanitized (the
    harness takes and prints the pool's bytes: little-endian int16 elements)."""
    model, data, _ = case
    program = chained_program(model)
    expected = Interpreter(program).run([data]).raw_outputs[0].astype("<i2").reshape(-1).view(np.int8)
    with tempfile.TemporaryDirectory() as work:
        status, outputs, _ = build_and_run(program, [data.astype("<i2").reshape(-1).view(np.int8)], SANITIZED_HOST,
                                           Path(work))
    assert status == 0
    np.testing.assert_array_equal(outputs[0], expected)
