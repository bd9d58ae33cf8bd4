"""Run a model through vmcu-tflite and TFLite Micro and require identical outputs."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from vmcu_reference.interpreter import run_model_bytes
from vmcu_tflite.errors import ModelError
from vmcu_tflite.oracle import OracleError, run_tflm


def assert_matches_tflm(model: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Bit-exact comparison of every output; returns ours for further checks."""
    ours = run_model_bytes(model, inputs)
    theirs, _ = run_tflm(model, inputs, num_outputs=len(ours))
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype and a.shape == b.shape, (i, a.dtype, a.shape, b.dtype, b.shape)
        if not np.array_equal(a, b):
            diff = np.argwhere(a != b)
            first = tuple(diff[0])
            raise AssertionError(f"output {i}: {len(diff)} of {a.size} values differ; first at {first}: "
                                 f"ours {a[first]} vs TFLite Micro {b[first]}")
    return ours


def assert_matches_or_refused_like_tflm(model: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """Bit-exact when we accept the model; when we refuse it, TFLite Micro must refuse it too."""
    try:
        return assert_matches_tflm(model, inputs)
    except ModelError as ours:
        if isinstance(ours, OracleError):
            raise
        try:
            run_tflm(model, inputs, num_outputs=1)
        except OracleError:
            return None
        raise AssertionError(f"we refuse ({ours}) what TFLite Micro runs") from ours
