"""--compare-tflm must name the first tensor that differs, not just say that outputs differ."""
from __future__ import annotations

import numpy as np

from tests.models_under_test import conv_chain
from vmcu_reference.compare import first_divergence
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.pipeline import compile_model


def test_identical_run_has_no_divergence():
    model = conv_chain(channels=(3, 8, 4, 5))
    program = compile_model(model)
    x = [np.random.default_rng(5).integers(-128, 128, (1, 6, 6, 3)).astype(np.int8)]
    result = Interpreter(program).run(x, record=True)
    assert first_divergence(model, program, x, result) is None


def test_first_diverging_tensor_is_named():
    model = conv_chain(channels=(3, 8, 4, 5))
    program = compile_model(model, fuse=False)  # every layer's output exists, to be compared
    x = [np.random.default_rng(5).integers(-128, 128, (1, 6, 6, 3)).astype(np.int8)]
    result = Interpreter(program).run(x, record=True)
    middle = program.steps[1].outputs[0]
    result.tensors[middle] = result.tensors[middle].copy()
    result.tensors[middle][0, 2, 3, 1] ^= 1  # one wrong bit in step 1's output
    last = program.steps[2].outputs[0]
    result.tensors[last] = result.tensors[last] + np.int8(1)  # and everything after it
    divergence = first_divergence(model, program, x, result)
    assert divergence is not None
    assert divergence.tensor == middle and divergence.differing == 1
    assert divergence.first_index == (0, 2, 3, 1)
    assert "step 1 (CONV_2D, TFLite op 1)" in str(divergence)
