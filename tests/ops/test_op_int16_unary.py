"""int16 RELU, RELU6 and LEAKY_RELU (16x8 models, the INT16_UNARY step): the pipeline (reference
interpreter) against TFLite Micro over every int16 input, scales, zero points and alphas, and the
refusals TFLite Micro's Prepare makes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model

ALL = np.arange(-32768, 32768, dtype=np.int64).astype(np.int16)


def unary16_model(kind: str, shape, scales=(1e-3, 1e-3), zero_points=(0, 0), alpha: float = 0.2) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=scales[0], zero_point=zero_points[0])
    out = b.tensor(shape, "int16", scale=scales[1], zero_point=zero_points[1])
    b.op(kind, [x], [out], **({"alpha": alpha} if kind == "LEAKY_RELU" else {}))
    b.inputs, b.outputs = [x], [out]
    return b.build()


CASES = [("RELU", (1e-3, 1e-3), (0, 0), 0.2), ("RELU", (1e-3, 3e-4), (0, 0), 0.2), ("RELU", (0.05, 0.1), (0, 0), 0.2),
         ("RELU6", (1e-3, 1e-3), (0, 0), 0.2), ("RELU6", (2e-4, 1e-3), (100, -5), 0.2),
         ("LEAKY_RELU", (1e-3, 1e-3), (0, 0), 0.2), ("LEAKY_RELU", (1e-3, 5e-4), (0, 0), -1.5),
         ("LEAKY_RELU", (3e-3, 1e-3), (-200, 77), 3.0),
         # the identity ratio's float32 quotient is an ulp below the double one: input 23178 lands on a tie
         ("LEAKY_RELU", (0.05711718276143074, 0.05992359668016434), (0, 0), 0.0)]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_every_input_matches_tflm(case):
    kind, scales, zero_points, alpha = case
    assert_matches_tflm(unary16_model(kind, [65536], scales, zero_points, alpha), [ALL])


scales = st.floats(1e-5, 1e-1).map(lambda s: float(np.float32(s)))


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["RELU", "RELU6", "LEAKY_RELU"]), s=st.tuples(scales, scales),
       alpha=st.floats(-3.0, 3.0), shape=st.lists(st.integers(1, 6), min_size=1, max_size=4),
       seed=st.integers(0, 2**31))
def test_matches_tflm(kind, s, alpha, shape, seed):
    rng = np.random.default_rng(seed)
    model = unary16_model(kind, shape, s, alpha=float(np.float32(alpha)))
    graph = parse_model(model)
    try:
        prepare(graph, graph.ops[0])
    except ModelError as error:
        assert "left shift" in str(error) or "6" in str(error)
        return
    assert_matches_tflm(model, [rng.integers(-32768, 32768, size=shape).astype(np.int16)])


def refusal(model: bytes) -> str:
    graph = parse_model(model)
    with pytest.raises(ModelError) as info:
        prepare(graph, graph.ops[0])
    return str(info.value)


def test_refusals():
    assert "zero point 3 is not 0" in refusal(unary16_model("RELU", [4], zero_points=(3, 0)))
    assert "left shift" in refusal(unary16_model("RELU", [4], (1.0, 1e-6)))
    assert "left shift" in refusal(unary16_model("LEAKY_RELU", [4], (1.0, 1e-6)))
    # an alpha of NaN (fuzzing, elementwise16 seed 490: a traceback before), refused as the int8 path refuses it
    assert "alpha nan is not finite" in refusal(unary16_model("LEAKY_RELU", [4], alpha=float("nan")))
