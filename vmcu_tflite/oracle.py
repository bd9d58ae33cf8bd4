"""TFLite Micro, the oracle: run a model with `tflite-micro` and read its outputs and tensors.

`tflite-micro` is only needed for comparisons (`vmcu-run --compare-tflm`, the tests), so it is
imported lazily and its absence is reported as a usage error.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Sequence

import numpy as np

from .errors import UsageError


def _runtime():
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        raise UsageError("the TFLite Micro oracle is not installed (pip install tflite-micro)") from None
    return runtime


def _interpreter(model: bytes, preserve_all: bool):
    runtime = _runtime()
    config = (runtime.InterpreterConfig.kPreserveAllTensors if preserve_all
              else runtime.InterpreterConfig.kAllocationRecording)
    return runtime.Interpreter.from_bytes(model, arena_size=max(len(model) * 10, 8 << 20),
                                          intrepreter_config=config)


def run_tflm(model: bytes, inputs: Sequence[np.ndarray], num_outputs: int, tensors: Sequence[int] = ()):
    """Invoke TFLite Micro once; returns (outputs, {tensor index: values}) for the asked tensors."""
    interpreter = _interpreter(model, preserve_all=bool(tensors))
    for i, x in enumerate(inputs):
        interpreter.set_input(x, i)
    interpreter.invoke()
    outputs = [np.array(interpreter.get_output(i)) for i in range(num_outputs)]
    inner = {t: np.array(interpreter.GetTensor(t, 0)["tensor_data"]) for t in tensors}
    return outputs, inner


def tflm_arena_bytes(model: bytes, inputs: Sequence[np.ndarray]) -> dict[str, int]:
    """TFLite Micro's arena use ("head" = activations, "tail" = persistent, "total"), as it prints it."""
    interpreter = _interpreter(model, preserve_all=False)
    for i, x in enumerate(inputs):
        interpreter.set_input(x, i)
    interpreter.invoke()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            interpreter.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        text = capture.read().decode(errors="replace")
    found = dict(re.findall(r"Arena allocation (total|head|tail) (\d+) bytes", text))
    return {k: int(v) for k, v in found.items()}
