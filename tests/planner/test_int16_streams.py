"""The hand-written int16 kernels that stream (PAD, PAD_S16, the int16 pools, MEAN_S16, the 16x8 LSTM):
their outputs land on input bytes already consumed, the 16x8 fixtures' pools at most half of TFLite
Micro's arena, and a plan made from an access pattern that frees input too early is a hazard the
reference interpreter catches (it replays the kernels' true walk)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.tflite_builder import ModelBuilder
from vmcu_reference.inputs import random_inputs
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import HazardError
from vmcu_tflite.ops import SPECS
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner.access import Expr
from vmcu_tflite.planner.gap import min_distance
from vmcu_tflite.planner.streaming import access_pattern

MODELS = Path(__file__).resolve().parents[2] / "models"


def fixture(name: str) -> bytes:
    return (MODELS / f"{name}.tflite").read_bytes()


# fixture -> (the steps that stream over their input, its pool at most: half TFLite Micro's arena head)
STREAMING = {
    "sixteen_by_eight": ({"PAD", "AVERAGE_POOL_2D_S16", "MAX_POOL_2D_S16", "MEAN_S16"}, 3456 // 2),
    "lstm_sequence_16x8": ({"UNIDIRECTIONAL_SEQUENCE_LSTM_S16"}, 416 // 2),
}


@pytest.mark.parametrize("name", sorted(STREAMING))
def test_int16_fixtures_stream_their_hand_written_steps_within_half_of_tflite_micro(name):
    model = fixture(name)
    program = compile_model(model)
    kinds, most = STREAMING[name]
    streamed = {s.kernel for s in program.plan.steps if s.mode == "segment" and s.streamed_inputs}
    assert kinds <= streamed, kinds - streamed
    assert program.plan.pool_bytes <= most, program.plan.pool_bytes
    data = random_inputs(program.graph, 0)
    ours = Interpreter(program).run(data).outputs
    for a, b in zip(ours, run_tflm(model, data, len(ours))[0]):
        np.testing.assert_array_equal(a, b)


def single(kind: str, in_shape, out_shape, constants=(), **options) -> bytes:
    """One int16 op on an int16 input (scale 1e-3, zero point 0)."""
    b = ModelBuilder()
    q = dict(scale=1e-3, zero_point=0)
    x, y = b.tensor(in_shape, "int16", **q), b.tensor(out_shape, "int16", **q)
    b.op(kind, [x] + [b.const(c, **(q if c.dtype == np.int16 else {})) for c in constants], [y], **options)
    b.inputs, b.outputs = [x], [y]
    return b.build()


PADS = np.array([[0, 0], [2, 0], [0, 1], [0, 0]], np.int32)
# (the kind of step 0, its model)
FIRST_STEPS = {
    "PAD": lambda: single("PAD", (1, 4, 3, 6), (1, 6, 4, 6), (PADS,)),
    "PAD_S16": lambda: single("PADV2", (1, 4, 3, 6), (1, 6, 4, 6), (PADS, np.array([300], np.int16))),
    # SAME windows, stride 1: a window reads ahead of the pixel it writes, so the output starts before the input
    "AVERAGE_POOL_2D_S16": lambda: single("AVERAGE_POOL_2D", (1, 7, 6, 20), (1, 7, 6, 20), padding=0, stride_h=1,
                                          stride_w=1, filter_height=3, filter_width=2),
    "MAX_POOL_2D_S16": lambda: single("MAX_POOL_2D", (1, 7, 6, 3), (1, 7, 6, 3), padding=0, stride_h=1, stride_w=1,
                                      filter_height=3, filter_width=2),
    "MEAN_S16": lambda: single("MEAN", (1, 4, 5, 6), (1, 6), (np.array([1, 2], np.int32),), keep_dims=False),
    "UNIDIRECTIONAL_SEQUENCE_LSTM_S16": lambda: fixture("lstm_sequence_16x8"),
}


def freeing_early(access, shift: int):
    """An access function that claims every read `shift` bytes further on than the kernel makes it: the
    planner would believe input bytes free sooner than they are."""
    def wrong(graph, step, position, segment):
        pattern = access(graph, step, position, segment)
        if pattern is None:
            return None
        moved = lambda e: Expr(e.const + shift, e.terms)  # noqa: E731
        return replace(pattern, read_lo=moved(pattern.read_lo), read_hi=moved(pattern.read_hi))
    return wrong


def output_at(program, distance: int):
    """The plan with step 0's output `distance` bytes before its input (and the buffers that shared the
    output's place moved with it), in the same pool."""
    plan, step = program.plan, program.steps[0]
    x, y = step.inputs[0], step.outputs[0]
    target = (plan.offsets[x] - distance) % plan.pool_bytes
    offsets = {t: (target if at == plan.offsets[y] and t != x else at) for t, at in plan.offsets.items()}
    return replace(program, plan=replace(plan, offsets=offsets))


@pytest.mark.parametrize("kind", sorted(FIRST_STEPS))
def test_the_least_distance_runs_and_an_access_freeing_two_bytes_early_is_a_hazard(monkeypatch, kind):
    """The distance solved from the pattern (eq. 1, before the planner rounds a negative one up to 0) is
    exact: the interpreter replays the kernel's walk through the same pattern without a hazard, and a
    pattern that frees input bytes one int16 element early gives a distance at which the true walk
    reads a byte its output already overwrote."""
    program = compile_model(FIRST_STEPS[kind]())
    step = program.steps[0]
    assert step.kernel == kind and program.plan.steps[0].streamed_inputs == (step.inputs[0],)
    data = random_inputs(program.graph, 0)
    segment = program.plan.steps[0].segment_bytes
    right = min_distance(access_pattern(program.graph, step, step.inputs[0], segment))
    with monkeypatch.context() as patch:
        patch.setitem(SPECS, kind, replace(SPECS[kind], access=freeing_early(SPECS[kind].access, 2)))
        wrong = min_distance(access_pattern(program.graph, step, step.inputs[0], segment))
    assert wrong < right
    expected = run_tflm(FIRST_STEPS[kind](), data, 1)[0][0]
    np.testing.assert_array_equal(Interpreter(output_at(program, right)).run(data).outputs[0], expected)
    with pytest.raises(HazardError, match=rf"step 0 \({kind}"):
        Interpreter(output_at(program, wrong)).run(data)
