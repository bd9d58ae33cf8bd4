"""Run a model through vmcu-tflite and TFLite Micro and require identical outputs."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import ArithmeticInputError, ModelError
from vmcu_tflite.oracle import OracleError, oracle_name, run_tflm, run_tflm_sequence
from vmcu_tflite.pipeline import compile_model


def assert_matches_tflm(model: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Bit-exact comparison of every output with the oracle (TFLite Micro, or LiteRT for the
    operators it lacks); returns ours for further checks."""
    return assert_sequence_matches_tflm(model, [inputs])[0]


def assert_matches_or_refused_like_tflm(model: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """Bit-exact when we accept the model; when we refuse it, or stop on these inputs, TFLite Micro
    must refuse it or fail on them too."""
    try:
        return assert_matches_tflm(model, inputs)
    except (ModelError, ArithmeticInputError) as ours:
        if isinstance(ours, OracleError):
            raise
        try:
            run_tflm(model, inputs, num_outputs=1)
        except OracleError:
            return None
        raise AssertionError(f"we refuse ({ours}) what TFLite Micro runs") from ours


def assert_sequence_matches_tflm(model: bytes, runs: Sequence[Sequence[np.ndarray]]) -> list[list[np.ndarray]]:
    """Bit-exact over a sequence of runs of one interpreter each, state carried from run to run
    (an LSTM's or SVDF's variable tensors); returns our outputs per run."""
    interpreter = Interpreter(compile_model(model))
    ours = [interpreter.run(inputs).outputs for inputs in runs]
    theirs = run_tflm_sequence(model, runs, num_outputs=len(ours[0]))
    for r, (a_run, (b_run, _)) in enumerate(zip(ours, theirs)):
        assert len(a_run) == len(b_run)
        for i, (a, b) in enumerate(zip(a_run, b_run)):
            assert a.dtype == b.dtype and a.shape == b.shape, (r, i, a.dtype, a.shape, b.dtype, b.shape)
            if not np.array_equal(a, b):
                diff = np.argwhere(a != b)
                first = tuple(diff[0])
                raise AssertionError(f"{f'run {r}, ' if len(runs) > 1 else ''}output {i}: {len(diff)} of {a.size} "
                                     f"values differ; first at {first}: ours {a[first]} vs {oracle_name(model)} "
                                     f"{b[first]}")
    return ours
