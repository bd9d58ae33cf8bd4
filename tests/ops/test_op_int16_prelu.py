"""int16 PRELU (16x8 models, the INT16_PRELU step): the pipeline (reference interpreter) against
TFLite Micro over shapes, alpha broadcasts, scales and zero points with full-scale int16 inputs, and
the refusals (TFLite Micro's int8 alpha; a non-constant alpha)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


def prelu16_model(shape, alpha: np.ndarray, scales=(1e-3, 0.01, 2e-3), zero_points=(0, 0, 0),
                  alpha_dtype: str = "int8", alpha_constant: bool = True) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=scales[0], zero_point=zero_points[0])
    if alpha_constant:
        a = b.const(np.asarray(alpha).astype(alpha_dtype), scale=scales[1], zero_point=zero_points[1])
    else:
        a = b.tensor(np.shape(alpha), alpha_dtype, scale=scales[1], zero_point=zero_points[1])
    out = b.tensor(shape, "int16", scale=scales[2], zero_point=zero_points[2])
    b.op("PRELU", [x, a], [out])
    b.inputs, b.outputs = ([x] if alpha_constant else [x, a]), [out]
    return b.build()


scales = st.floats(1e-4, 1e-1).map(lambda s: float(np.float32(s)))


@settings(max_examples=50, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), per_channel=st.booleans(),
       s=st.tuples(scales, scales, scales), zero_points=st.tuples(st.integers(-100, 100), st.integers(-128, 127),
                                                                  st.integers(-100, 100)),
       seed=st.integers(0, 2**31))
def test_matches_tflm(shape, per_channel, s, zero_points, seed):
    rng = np.random.default_rng(seed)
    alpha_shape = shape[-1:] if per_channel else [1] * len(shape)
    alpha = rng.integers(-128, 128, size=alpha_shape)
    model = prelu16_model(shape, alpha, s, zero_points)
    graph = parse_model(model)
    try:
        prepare(graph, graph.ops[0])
    except ModelError as error:
        assert "too small" in str(error)
        return
    assert_matches_tflm(model, [rng.integers(-32768, 32768, size=shape).astype(np.int16)])


def test_every_input_per_channel_alpha():
    x = np.arange(-32768, 32768, dtype=np.int64).astype(np.int16).reshape(1, 256, 32, 8)
    alpha = np.array([-128, -50, -1, 0, 1, 30, 100, 127])
    assert_matches_tflm(prelu16_model([1, 256, 32, 8], alpha, zero_points=(0, 3, 0)), [x])


def refusal(model: bytes) -> str:
    graph = parse_model(model)
    with pytest.raises(ModelError) as info:
        prepare(graph, graph.ops[0])
    return str(info.value)


def test_refusals():
    assert "int8 alpha" in refusal(prelu16_model([2, 4], np.ones(4), alpha_dtype="int16"))
    assert "must be a constant" in refusal(prelu16_model([2, 4], np.ones(4), alpha_constant=False))
    assert "too small" in refusal(prelu16_model([2, 4], np.ones(4), (1.0, 1.0, 1e-6)))
