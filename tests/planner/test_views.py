"""int16 slices that are one run of their input's bytes placed as views (`vmcu_tflite/planner/views.py`).

A SPLIT's or UNPACK's part pinned onto the bytes it copies: bit-exact against TFLite Micro, in the
interpreter and in the sanitized host C; a smaller pool than with the parts apart; and a plan that
moves a pinned part off its bytes, or onto another part's, is a hazard the interpreter reports.
"""
from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.c.c_validate import check_model
from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import HazardError
from vmcu_tflite.ops.strided_slice import SliceParams
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner.tensor import plan_tensors
from vmcu_tflite.report import pinned_views
from vmcu_tflite.planner.views import contiguous_offset, view_offset, view_steps
from vmcu_tflite.validate.targets import SANITIZED_HOST


def parts_model(kind: str, width: int, parts: int = 4) -> bytes:
    """An int16 input cut into `parts` parts (SPLIT along the last axis of 1 x parts*width, or UNPACK
    of parts x 1 x width), the parts added pairwise then together: every part is read once, later."""
    b = ModelBuilder()
    scale = dict(scale=1 / 2048, zero_point=0)
    if kind == "SPLIT":
        x = b.tensor([1, parts * width], "int16", **scale)
        ys = [b.tensor([1, width], "int16", **scale) for _ in range(parts)]
        b.op("SPLIT", [b.const(np.array([1], np.int32)), x], ys, num_splits=parts)
    else:
        x = b.tensor([parts, 1, width], "int16", **scale)
        ys = [b.tensor([1, width], "int16", **scale) for _ in range(parts)]
        b.op("UNPACK", [x], ys, num=parts, axis=0)
    total = ys[0]
    for k, y in enumerate(ys[1:]):
        out = b.tensor([1, width], "int16", scale=(k + 2) / 2048, zero_point=0)
        b.op("ADD", [total, y], [out])
        total = out
    b.inputs, b.outputs = [x], [total]
    return b.build()


def values(rng, shape) -> np.ndarray:
    return rng.integers(-32768, 32768, size=shape).astype(np.int16)


def pinned(program) -> list[int]:
    """The steps whose part sits exactly on the input bytes it copies."""
    g, plan = program.graph, program.plan
    found = []
    for step in program.steps:
        offset = view_offset(g, step)
        if offset is not None and (plan.offsets[g.storage_of(step.inputs[0])] + offset) % plan.pool_bytes == \
                plan.offsets[g.storage_of(step.outputs[0])]:
            found.append(step.index)
    return found


def test_contiguous_offset():
    run = SliceParams(input_shape=(1, 32), begin=(0, 8), steps=(1, 1), counts=(1, 8), output_shape=(1, 8),
                      element_bytes=2)
    assert contiguous_offset(run) == 16
    frame = SliceParams(input_shape=(1, 5, 10), begin=(0, 3, 0), steps=(1, 1, 1), counts=(1, 1, 10),
                        output_shape=(1, 10), element_bytes=2)
    assert contiguous_offset(frame) == 60
    column = SliceParams(input_shape=(4, 6), begin=(0, 2), steps=(1, 1), counts=(4, 2), output_shape=(4, 2),
                         element_bytes=2)
    assert contiguous_offset(column) is None  # four runs of two elements
    strided = SliceParams(input_shape=(1, 8), begin=(0, 0), steps=(1, 2), counts=(1, 4), output_shape=(1, 4),
                          element_bytes=2)
    assert contiguous_offset(strided) is None


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["SPLIT", "UNPACK"]), st.integers(1, 9), st.integers(2, 5), st.integers(0, 2**31))
def test_views_pinned_and_bit_exact(kind, width, parts, seed):
    model = parts_model(kind, width, parts)
    program = compile_model(model)
    assert pinned(program), "no part was pinned"
    assert pinned_views(program) == set(pinned(program))  # the report's `view` mode
    assert program.plan.pool_bytes < plan_tensors(program.graph, program.steps).pool_bytes
    shape = (1, parts * width) if kind == "SPLIT" else (parts, 1, width)
    assert_matches_tflm(model, [values(np.random.default_rng(seed), shape)])


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("kind", ["SPLIT", "UNPACK"])
def test_views_in_c(kind):
    assert check_model(parts_model(kind, 6), "vmcu", SANITIZED_HOST, seed=5) == (True, True, 0)


@pytest.mark.parametrize("kind", ["SPLIT", "UNPACK"])
@pytest.mark.parametrize("move", ["off", "onto_another"])
def test_a_part_moved_off_its_bytes_is_a_hazard(kind, move):
    model = parts_model(kind, 6)
    program = compile_model(model)
    g, plan = program.graph, program.plan
    first, second = pinned(program)[:2]
    y = g.storage_of(program.steps[second].outputs[0])
    if move == "off":  # two bytes further into the input: its bytes, but not the ones the part copies
        at = (plan.offsets[y] + 2) % plan.pool_bytes
    else:  # onto the part cut just before it
        at = plan.offsets[g.storage_of(program.steps[first].outputs[0])]
    broken = replace(program, plan=replace(plan, offsets=dict(plan.offsets) | {y: at}))
    shape = (1, 4 * 6) if kind == "SPLIT" else (4, 1, 6)
    data = np.arange(24, dtype=np.int16).reshape(shape) * 101 - 1200  # no two runs of bytes alike
    Interpreter(program).run([data])
    with pytest.raises(HazardError):
        Interpreter(broken).run([data])


def test_no_view_of_an_input_something_else_reads_whole():
    """A part pinned into an input that a later step reads whole would leave that read bytes that
    are the part's by then: such an input keeps its parts apart."""
    b = ModelBuilder()
    scale = dict(scale=1 / 2048, zero_point=0)
    x = b.tensor([1, 8], "int16", **scale)
    lo, hi = b.tensor([1, 4], "int16", **scale), b.tensor([1, 4], "int16", **scale)
    b.op("SPLIT", [b.const(np.array([1], np.int32)), x], [lo, hi], num_splits=2)
    part = b.tensor([1, 4], "int16", scale=2 / 2048, zero_point=0)
    b.op("ADD", [lo, hi], [part])
    whole = b.tensor([1, 8], "int16", scale=2 / 2048, zero_point=0)
    b.op("ADD", [x, x], [whole])
    b.inputs, b.outputs = [x], [part, whole]
    model = b.build()
    program = compile_model(model)
    assert view_steps(program.graph, program.steps) == {} and not pinned(program)
    assert_matches_tflm(model, [values(np.random.default_rng(3), (1, 8))])
