"""CONCATENATION against TFLite Micro: 1-D to 6-D, any axis (negative too), 1 to 10 inputs, constants."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model


@st.composite
def concat_cases(draw):
    rank = draw(st.integers(1, 6))
    axis = draw(st.integers(-rank, rank - 1))
    count = draw(st.sampled_from([2, 2, 3, 4, 1, 10]))
    base = [draw(st.integers(1, 4)) for _ in range(rank)]
    sizes = [draw(st.integers(1, 5)) for _ in range(count)]
    constants = [draw(st.sampled_from([False, False, False, True])) for _ in range(count)]
    if all(constants):
        constants[0] = False
    return dict(base=base, axis=axis, sizes=sizes, constants=constants, seed=draw(st.integers(0, 2**31)),
                dtype=draw(st.sampled_from(["int8", "int8", "int16", "int32"])))


def build_concat(case, scales=None):
    rng = np.random.default_rng(case["seed"])
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    axis, base = case["axis"], case["base"]
    positive = axis % len(base)
    b = ModelBuilder()
    tensors, feeds = [], []
    for i, (size, is_const) in enumerate(zip(case["sizes"], case["constants"])):
        shape = list(base)
        shape[positive] = size
        s, z = scales[i] if scales else (scale, zp)
        dtype = case.get("dtype", "int8")
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        quant = dict(scale=s, zero_point=z) if dtype == "int8" else {}  # int16/int32: integers, unquantized
        if is_const:
            tensors.append(b.const(data, **quant))
        else:
            tensors.append(b.tensor(shape, dtype, **quant))
            feeds.append(data)
    out_shape = list(base)
    out_shape[positive] = sum(case["sizes"])
    y = (b.tensor(out_shape, scale=scale, zero_point=zp) if case.get("dtype", "int8") == "int8"
         else b.tensor(out_shape, case["dtype"]))
    b.op("CONCATENATION", tensors, [y], axis=axis)
    b.inputs = [t for t, c in zip(tensors, case["constants"]) if not c]
    b.outputs = [y]
    return b.build(), feeds


@settings(max_examples=60, deadline=None)
@given(concat_cases())
def test_concatenation_bit_exact(case):
    model, feeds = build_concat(case)
    ours = assert_matches_tflm(model, feeds)
    assert ours[0].shape[case["axis"]] == sum(case["sizes"])


def test_concatenation_rejects_requantization_like_tflm():
    """TFLite Micro does not requantize: an input quantized unlike the output fails its Prepare."""
    case = dict(base=[1, 3, 4], axis=-1, sizes=[2, 3], constants=[False, False], seed=1)
    model, feeds = build_concat(case, scales=[(0.1, 3), (0.2, 3)])
    graph = parse_model(model)
    with pytest.raises(ModelError, match="CONCATENATION.*requantize"):
        prepare(graph, graph.ops[0])
    from vmcu_tflite.oracle import run_tflm
    with pytest.raises(Exception):
        run_tflm(model, feeds, num_outputs=1)


def _int16_concat(zero_points, scales=(0.1, 0.2, 0.3)) -> tuple[bytes, list[np.ndarray]]:
    """Two quantized int16 inputs [1, 2, 3] and [1, 2, 1] joined on the last axis."""
    rng = np.random.default_rng(4)
    b = ModelBuilder()
    xs = [b.tensor((1, 2, n), "int16", scale=s, zero_point=z) for n, s, z in zip((3, 1), scales, zero_points)]
    y = b.tensor((1, 2, 4), "int16", scale=scales[2], zero_point=zero_points[2])
    b.op("CONCATENATION", xs, [y], axis=-1)
    b.inputs, b.outputs = xs, [y]
    return b.build(), [rng.integers(-32768, 32768, size=(1, 2, n)).astype(np.int16) for n in (3, 1)]


@pytest.mark.parametrize("zero_points", [(0, 1, 0), (0, 0, -32768)])
def test_int16_concatenation_refuses_a_zero_point_like_tflm(zero_points):
    """TFLite Micro requires zero point 0 on every int16 input and the output (any scales)."""
    model, feeds = _int16_concat(zero_points)
    graph = parse_model(model)
    with pytest.raises(ModelError, match="CONCATENATION.*int16 zero point must be 0"):
        prepare(graph, graph.ops[0])
    from vmcu_tflite.oracle import run_tflm
    with pytest.raises(Exception):
        run_tflm(model, feeds, num_outputs=1)


def test_int16_concatenation_copies_whatever_the_scales():
    model, feeds = _int16_concat((0, 0, 0))
    ours = assert_matches_tflm(model, feeds)
    assert np.array_equal(ours[0], np.concatenate(feeds, axis=-1))
