"""int32 ADD, MUL, DIV, MAXIMUM and MINIMUM (the INT32_BINARY step): the reference kernel against
TFLite Micro over broadcasts, activations and values that overflow, and the refusals."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.ops.signal_harness import assert_reference_matches_tflm, reference_runs, tflm_refuses
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ArithmeticInputError, ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import parse_model

OPS = ("ADD", "MUL", "DIV", "MAXIMUM", "MINIMUM")


def binary_model(kind: str, shape_a, shape_b, shape_out, act: int = 0, constant=None, quantized: bool = False) -> bytes:
    """`constant`: the second operand's data, made a constant."""
    b = ModelBuilder()
    quant = dict(scale=0.5, zero_point=0) if quantized else {}
    a = b.tensor(shape_a, "int32", **quant)
    c = (b.const(np.asarray(constant, np.int32), **quant) if constant is not None
         else b.tensor(shape_b, "int32", **quant))
    out = b.tensor(shape_out, "int32")
    options = {} if kind in ("MAXIMUM", "MINIMUM") else {"fused_activation_function": act}
    b.op(kind, [a, c], [out], **options)
    b.inputs = [a] if constant is not None else [a, c]
    b.outputs = [out]
    return b.build()


def int32_values(rng: np.random.Generator, shape, divisor: bool = False) -> np.ndarray:
    """Small values, large ones (their sums and products overflow) and the extremes."""
    size = int(np.prod(shape, dtype=np.int64))
    kinds = rng.integers(0, 4, size=size)
    values = np.where(kinds == 0, rng.integers(-1000, 1001, size=size),
                      np.where(kinds == 1, rng.integers(-(1 << 31), 1 << 31, size=size),
                               np.where(kinds == 2, rng.integers(-70000, 70001, size=size),
                                        rng.choice([-(1 << 31), (1 << 31) - 1, -1, 0, 1], size=size))))
    if divisor:
        values = np.where(values == 0, 7, values)
        values = np.where(values == -1, -3, values)  # INT32_MIN / -1 is undefined: covered apart
    return values.astype(np.int32).reshape(shape)


@st.composite
def broadcast_shapes(draw):
    rank = draw(st.integers(0, 6))
    out = [draw(st.integers(1, 4)) for _ in range(rank)]
    a = [d if draw(st.booleans()) else 1 for d in out]
    b = [d if draw(st.booleans()) else 1 for d in out]
    a = a[draw(st.integers(0, rank)):]  # lower-rank operands broadcast from the right
    b = b[draw(st.integers(0, rank)):]
    out = list(np.broadcast_shapes(tuple(a), tuple(b))) if a or b else []
    return a, b, out


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(OPS), shapes=broadcast_shapes(), act=st.integers(0, 3), constant=st.booleans(),
       seed=st.integers(0, 2**31))
def test_matches_tflm(kind, shapes, act, constant, seed):
    rng = np.random.default_rng(seed)
    shape_a, shape_b, shape_out = shapes
    x = int32_values(rng, shape_a)
    y = int32_values(rng, shape_b, divisor=kind == "DIV")
    model = binary_model(kind, shape_a, shape_b, shape_out, act, constant=y if constant else None)
    assert_reference_matches_tflm(model, [[x] if constant else [x, y]])


def test_known_values():
    """Wrapping sums and products, truncating quotients, ADD's activation ignored as TFLite Micro does."""
    x = np.array([2**31 - 1, -2**31, 5, -7, 100000, -3], np.int32)
    y = np.array([1, 2, -3, 2, 100000, 7], np.int32)
    expect = {("ADD", 1): [-2**31, -2**31 + 2, 2, -5, 200000, 4], ("MUL", 0): [2**31 - 1, 0, -15, -14, 1410065408, -21],
              ("MUL", 3): [6, 0, 0, 0, 6, 0], ("DIV", 0): [2**31 - 1, -2**30, -1, -3, 1, 0],
              ("MAXIMUM", 0): [2**31 - 1, 2, 5, 2, 100000, 7], ("MINIMUM", 0): [1, -2**31, -3, -7, 100000, -3]}
    for (kind, act), values in expect.items():
        (out,), = assert_reference_matches_tflm(binary_model(kind, [6], [6], [6], act), [[x, y]])
        assert out.tolist() == values, kind


def test_div_by_zero_stops_the_run_as_in_tflm():
    model = binary_model("DIV", [3], [3], [3])
    inputs = [np.array([1, 2, 3], np.int32), np.array([1, 0, 1], np.int32)]
    assert tflm_refuses(model, inputs)
    with pytest.raises(ArithmeticInputError, match="by zero"):
        reference_runs(model, [inputs])
    with pytest.raises(ArithmeticInputError, match="undefined"):
        reference_runs(model, [[np.array([-2**31, 0, 0], np.int32), np.array([-1, 1, 1], np.int32)]])


@pytest.mark.parametrize("kind, refused", [("ADD", True), ("DIV", True), ("MUL", False), ("MAXIMUM", False)])
def test_quantized_int32_inputs_refused_where_tflm_refuses_them(kind, refused):
    model = binary_model(kind, [4], [4], [4], quantized=True)
    inputs = [np.arange(4, dtype=np.int32), np.arange(1, 5, dtype=np.int32)]
    assert tflm_refuses(model, inputs) == refused
    if refused:
        graph = parse_model(model)
        with pytest.raises(ModelError, match="quantized"):
            prepare(graph, graph.ops[0])
    else:
        assert_reference_matches_tflm(model, [inputs])


def test_mixed_types_and_int8_div_refused():
    b = ModelBuilder()
    a, c, out = b.tensor([4], "int32"), b.tensor([4], "int32"), b.tensor([4], "int8", scale=1.0)
    b.op("MUL", [a, c], [out], fused_activation_function=0)
    b.inputs, b.outputs = [a, c], [out]
    graph = parse_model(b.build())
    with pytest.raises(ModelError, match="output is int8"):
        prepare(graph, graph.ops[0])
    b = ModelBuilder()
    a, c, out = (b.tensor([4], "int8", scale=1.0) for _ in range(3))
    b.op("DIV", [a, c], [out], fused_activation_function=0)
    b.inputs, b.outputs = [a, c], [out]
    graph = parse_model(b.build())
    with pytest.raises(ModelError, match="only int32 DIV"):
        prepare(graph, graph.ops[0])


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(OPS), shapes=broadcast_shapes(), act=st.integers(0, 3), constant=st.booleans(),
       seed=st.integers(0, 2**31))
def test_through_the_pipeline(kind, shapes, act, constant, seed):
    """The INT32_BINARY step as the pipeline plans it: int32 elements in the pool, the interpreter's bytes."""
    rng = np.random.default_rng(seed)
    shape_a, shape_b, shape_out = shapes
    x = int32_values(rng, shape_a)
    y = int32_values(rng, shape_b, divisor=kind == "DIV")
    model = binary_model(kind, shape_a, shape_b, shape_out, act, constant=y if constant else None)
    assert compile_model(model).steps[0].kernel == "INT32_BINARY"
    assert_matches_tflm(model, [x] if constant else [x, y])
