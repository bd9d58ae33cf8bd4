"""The interpreter's execution of kernel descriptions (reference/kernel_exec.py): what a load finds
in the pool, and the descriptions it refuses to execute rather than execute wrongly."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.kernels.test_mutations import rewrite
from vmcu_reference import interpreter as interpreter_module
from vmcu_reference.interpreter import Interpreter
from vmcu_reference.inputs import random_inputs
from vmcu_reference.kernel_state import ExecutionError
from vmcu_reference.pool_history import PoolHistory
from vmcu_tflite import kernels
from vmcu_tflite.kernels.ir import Loop, RegAlloc
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import streaming

MODELS = Path(__file__).resolve().parents[2] / "models"


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_load_finds_the_last_byte_stored_before_it(data):
    """PoolHistory against a replay: at each (address, time) the byte of the latest earlier store,
    or the pool's byte from before the step."""
    size = data.draw(st.integers(1, 6))
    count = data.draw(st.integers(0, 24))
    addresses = np.array(data.draw(st.lists(st.integers(0, size - 1), min_size=count, max_size=count)), np.int64)
    times = 2 * np.array(data.draw(st.lists(st.integers(0, 40), min_size=count, max_size=count, unique=True)), np.int64)
    values = np.arange(count, dtype=np.int64) + 100
    before = np.arange(size, dtype=np.int8) - 50
    history = PoolHistory(before, {(0,): (addresses, times)})
    history.record((0,), values)
    queries = data.draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, 41)), max_size=30))
    where = np.array([a for a, _ in queries], np.int64)
    when = np.array([2 * t + 1 for _, t in queries], np.int64)
    got = history.read(where, when)
    for (a, t), value in zip(queries, got):
        earlier = [(tt, v) for aa, tt, v in zip(addresses, times, values) if aa == a and tt < 2 * t + 1]
        assert value == (max(earlier)[1] if earlier else before[a])


def test_a_store_not_yet_executed_is_pending():
    history = PoolHistory(np.zeros(4, np.int8), {(0,): (np.array([1]), np.array([10]))})
    assert history.read(np.array([1, 1]), np.array([9, 11])).tolist() == [0, int(np.int64(-(1 << 62)))]


def _hoist_accumulators(kernel):
    """`acc` declared once per pass over the channels (per output segment, or per tile where a tile's
    channels take one pass) instead of once per channel pair: its InitBias then resets it in every
    iteration of the channel loop, a value carried from one iteration to the next."""
    def change(stmt):
        inner = next((s for s in getattr(stmt, "body", ()) if isinstance(s, Loop) and s.var == "u"), None)
        if isinstance(stmt, Loop) and inner is not None:
            acc = next(s for s in inner.body if isinstance(s, RegAlloc) and s.name == "acc")
            body = [replace(s, body=tuple(t for t in s.body if t is not acc)) if s is inner else s for s in stmt.body]
            return replace(stmt, body=(acc, *body))
        return stmt
    return rewrite(kernel, change)


def test_a_value_carried_across_iterations_is_refused_not_misexecuted(monkeypatch):
    original = kernels.describe

    def describe(kind, params, segment, in_place=False, tile_rows=1):
        kernel = original(kind, params, segment, in_place, tile_rows)
        return _hoist_accumulators(kernel) if kernel is not None and kernel.name == "fully_connected" else kernel
    monkeypatch.setattr(streaming, "describe", describe)
    monkeypatch.setattr(interpreter_module, "describe", describe)
    program = compile_model(MODELS / "fc_batch.tflite")
    with pytest.raises(ExecutionError, match=r"step 0 \(FULLY_CONNECTED.*writes an element of acc twice"):
        Interpreter(program).run(random_inputs(program.graph, 0))
