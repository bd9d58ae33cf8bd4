"""int16 LOGISTIC and TANH (16x8 models, the INT16_SIGMOID step): the pipeline (reference interpreter)
against TFLite Micro over every int16 input, power-of-two and general input scales, and the refusals
TFLite Micro's Prepare makes; the converter's sigmoid table against the reference kernel's."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops.op_int16_sigmoid import TABLE
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.ops.int16_sigmoid import sigmoid_table
from vmcu_tflite.reader import parse_model

ALL = np.arange(-32768, 32768, dtype=np.int64).astype(np.int16)


def sigmoid16_model(kind: str, shape, input_scale: float, output_scale: float = 2 ** -15,
                    zero_points=(0, 0)) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=input_scale, zero_point=zero_points[0])
    out = b.tensor(shape, "int16", scale=output_scale, zero_point=zero_points[1])
    b.op(kind, [x], [out])
    b.inputs, b.outputs = [x], [out]
    return b.build()


def test_tables_agree():
    assert list(sigmoid_table()) == TABLE.tolist()
    assert sigmoid_table()[0] == 32768 and sigmoid_table()[-1] == 65535
    assert all(a <= b for a, b in zip(sigmoid_table(), sigmoid_table()[1:]))


@pytest.mark.parametrize("kind", ["LOGISTIC", "TANH"])
@pytest.mark.parametrize("input_scale", [2 ** -12, 2 ** -11, 2 ** -10, 2 ** -15, 1e-3, 3.7e-5, 0.02, 2.6],
                         ids=lambda s: f"{s:g}")
def test_every_input_matches_tflm(kind, input_scale):
    """All 65536 inputs: the power-of-two paths (2^-12 both; 2^-11 TANH's) and general scales."""
    assert_matches_tflm(sigmoid16_model(kind, [65536], input_scale), [ALL])


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["LOGISTIC", "TANH"]), log_scale=st.floats(-20.0, 1.4),
       shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), seed=st.integers(0, 2**31))
def test_matches_tflm(kind, log_scale, shape, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-32768, 32768, size=shape).astype(np.int16)
    assert_matches_tflm(sigmoid16_model(kind, shape, float(np.float32(2.0 ** log_scale))), [x])


def refusal(model: bytes) -> str:
    graph = parse_model(model)
    with pytest.raises(ModelError) as info:
        prepare(graph, graph.ops[0])
    return str(info.value)


@pytest.mark.parametrize("kind", ["LOGISTIC", "TANH"])
def test_refusals(kind):
    assert "zero point 4 is not 0" in refusal(sigmoid16_model(kind, [4], 1e-3, zero_points=(4, 0)))
    assert "not 2^-15" in refusal(sigmoid16_model(kind, [4], 1e-3, output_scale=2 ** -14))
    assert "too large" in refusal(sigmoid16_model(kind, [4], 3.0))
