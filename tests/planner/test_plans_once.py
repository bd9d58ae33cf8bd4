"""A compilation plans each set of steps once (planner/planners.py, PlansOnce), with the plans it
would have made."""
from __future__ import annotations

from dataclasses import replace

from tests.models_under_test import FIXTURES
from vmcu_tflite.passes import simplify
from vmcu_tflite.pipeline import build_steps, compile_model
from vmcu_tflite.planner import planners
from vmcu_tflite.planner.planners import PlansOnce, make_plan
from vmcu_tflite.reader import read_model

BLOCK = next(m for m in FIXTURES if m.stem == "depthwise_block")
KWS_LIKE = next(m for m in FIXTURES if m.stem == "kws_like")


def _counting(monkeypatch) -> list[int]:
    """make_plan as PlansOnce calls it, counting the steps of each call."""
    calls: list[int] = []

    def counted(graph, steps, planner="vmcu"):
        calls.append(len(steps))
        return make_plan(graph, steps, planner)
    monkeypatch.setattr(planners, "make_plan", counted)
    return calls


def test_a_streamed_compilation_plans_its_repeated_trials_once(monkeypatch):
    """A streamed block's compilation with recomputation allowed asks for ten plans (five trials in
    each of its two compilations) of only three different sets of steps: it makes three. (A
    streamed LSTM's compilation took 44 s before, 9 s with each plan made once.)"""
    calls = _counting(monkeypatch)
    program = compile_model(BLOCK, recompute=True, stream_inputs=[0])
    assert len(calls) == 3, calls
    monkeypatch.undo()
    assert program.plan.pool_bytes == 2816


def test_a_repeat_is_the_plan_made_afresh_and_other_steps_are_planned(monkeypatch):
    graph = simplify(read_model(KWS_LIKE))
    steps = build_steps(graph)
    calls = _counting(monkeypatch)
    plans = PlansOnce(graph)
    first = plans(steps)
    assert plans(tuple(steps)) is first and len(calls) == 1
    assert plans(steps, "tensor").pool_bytes > first.pool_bytes and len(calls) == 2
    # a step's params changed in one field only: other steps, planned again
    k = next(i for i, s in enumerate(steps) if hasattr(s.params, "output_offset"))
    changed = steps[:k] + (replace(steps[k], params=replace(steps[k].params, output_offset=1)),) + steps[k + 1:]
    plans(changed)
    assert len(calls) == 3
    assert make_plan(graph, steps).dumps(graph) == first.dumps(graph)
