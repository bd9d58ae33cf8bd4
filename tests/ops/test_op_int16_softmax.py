"""int16 SOFTMAX (16x8 models, the INT16_SOFTMAX step): the pipeline (reference interpreter) against
TFLite Micro over shapes, input scales, betas and full-scale int16 inputs (TFLite Micro's own tables
are only reachable through its outputs: rows spanning the whole exp table check every entry), and
the refusals TFLite Micro's Prepare makes."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


def softmax16_model(shape, input_scale: float, beta: float = 1.0, output_scale: float = 1 / 32768,
                    zero_points=(0, 0)) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=input_scale, zero_point=zero_points[0])
    out = b.tensor(shape, "int16", scale=output_scale, zero_point=zero_points[1])
    b.op("SOFTMAX", [x], [out], beta=beta)
    b.inputs, b.outputs = [x], [out]
    return b.build()


@pytest.mark.parametrize("input_scale", [10 / 65535, 1e-3, 3e-5, 0.05])
def test_every_difference_matches_tflm(input_scale):
    """Rows whose differences to their maximum cover 0..-65535 (with the 10/65535 scale every entry
    of the exp table and its interpolation), then rows of few large values (the reciprocal table)."""
    ramp = np.arange(-32768, 32768, dtype=np.int64).reshape(512, 128).astype(np.int16)
    x = np.concatenate([ramp, np.full((512, 128), -32768, np.int16)], axis=0)
    x[512:, 0] = 32767
    x[512:, 1] = np.arange(-32768, 32768, 128).astype(np.int16)
    assert_matches_tflm(softmax16_model([1024, 128], input_scale), [x])


@settings(max_examples=50, deadline=None)
@given(shape=st.lists(st.integers(1, 40), min_size=1, max_size=3), log_scale=st.floats(-16.0, -3.0),
       beta=st.sampled_from([1.0, 0.5, 2.0, 0.1]), seed=st.integers(0, 2**31))
def test_matches_tflm(shape, log_scale, beta, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32768, size=shape).astype(np.int16)
    if rng.integers(0, 2):
        x = (x // 64).astype(np.int16)  # values close together: large sums of exps
    model = softmax16_model(shape, float(np.float32(2.0 ** log_scale)), beta)
    assert_matches_tflm(model, [x])


def refusal(model: bytes) -> str:
    graph = parse_model(model)
    with pytest.raises(ModelError) as info:
        prepare(graph, graph.ops[0])
    return str(info.value)


def test_refusals():
    assert "zero point 2 is not 0" in refusal(softmax16_model([4], 1e-3, zero_points=(2, 0)))
    assert "1/32768" in refusal(softmax16_model([4], 1e-3, output_scale=1 / 256))
    assert "too large" in refusal(softmax16_model([4], 200.0))


@pytest.mark.parametrize("beta", [math.nan, math.inf, -math.inf])
def test_a_beta_that_is_no_number_is_refused(beta):
    """TFLite's multiplier of input scale x beta is undefined for them (fuzzing: NaN was a ValueError)."""
    assert "is not a finite number" in refusal(softmax16_model([4], 1e-3, beta))
