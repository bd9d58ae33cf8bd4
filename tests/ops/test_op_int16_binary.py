"""int16 ADD, SUB and MUL (16x8 models, the INT16_BINARY step): the whole pipeline (reference
interpreter) against TFLite Micro over broadcasts, scales, fused activations and full-scale int16
inputs, and the refusals TFLite Micro's Prepare makes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model

OPS = ("ADD", "SUB", "MUL")


def binary16_model(kind: str, shape_a, shape_b, shape_out, scales=(1 / 4096, 1 / 2048, 1 / 1024), act: int = 0,
                   constant=None, zero_points=(0, 0, 0), constant_first: bool = False) -> bytes:
    """One int16 `kind` op; `constant`: the second operand's (or with `constant_first` the first's) data."""
    b = ModelBuilder()
    sa, sb, so = scales
    za, zb, zo = zero_points
    a = b.tensor(shape_a, "int16", scale=sa, zero_point=za)
    if constant is not None:
        c = b.const(np.asarray(constant, np.int16), scale=sb, zero_point=zb)
    else:
        c = b.tensor(shape_b, "int16", scale=sb, zero_point=zb)
    out = b.tensor(shape_out, "int16", scale=so, zero_point=zo)
    b.op(kind, [c, a] if constant_first else [a, c], [out], fused_activation_function=act)
    b.inputs = [a] if constant is not None else [a, c]
    b.outputs = [out]
    return b.build()


def int16_values(rng: np.random.Generator, shape) -> np.ndarray:
    """Uniform full-scale values with the extremes mixed in."""
    size = int(np.prod(shape, dtype=np.int64))
    values = rng.integers(-32768, 32768, size=size)
    pick = rng.integers(0, 5, size=size) == 0
    values = np.where(pick, rng.choice([-32768, 32767, -1, 0, 1], size=size), values)
    return values.astype(np.int16).reshape(shape)


@st.composite
def broadcast_shapes(draw, max_rank: int):
    rank = draw(st.integers(0, max_rank))
    out = [draw(st.integers(1, 4)) for _ in range(rank)]
    a = [d if draw(st.booleans()) else 1 for d in out]
    b = [d if draw(st.booleans()) else 1 for d in out]
    a = a[draw(st.integers(0, rank)):]
    b = b[draw(st.integers(0, rank)):]
    out = list(np.broadcast_shapes(tuple(a), tuple(b))) if a or b else []
    return a, b, out


scales = st.floats(1e-6, 1e-1).map(lambda s: float(np.float32(s)))


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from(OPS), shapes=broadcast_shapes(5), act=st.integers(0, 3), constant=st.booleans(),
       s=st.tuples(scales, scales, scales), seed=st.integers(0, 2**31))
def test_matches_tflm(kind, shapes, act, constant, s, seed):
    rng = np.random.default_rng(seed)
    shape_a, shape_b, shape_out = shapes
    x, y = int16_values(rng, shape_a), int16_values(rng, shape_b)
    try:
        model = binary16_model(kind, shape_a, shape_b, shape_out, s, act, constant=y if constant else None)
        graph = parse_model(model)
        prepare(graph, graph.ops[0])
    except ModelError:
        return  # a scale ratio TFLite Micro cannot run either (covered apart)
    assert_matches_tflm(model, [x] if constant else [x, y])


@pytest.mark.parametrize("kind", ["ADD", "SUB"])
@pytest.mark.parametrize("zero_points", [(5, -300, 7), (-32766, 32766, -32768)])
def test_add_sub_nonzero_zero_points(kind, zero_points):
    """TFLite Micro's int16 ADD and SUB take any zero points (offsets inside its bounds)."""
    rng = np.random.default_rng(3)
    model = binary16_model(kind, [3, 5], [5], [3, 5], (0.01, 0.003, 0.02), zero_points=zero_points)
    assert_matches_tflm(model, [int16_values(rng, [3, 5]), int16_values(rng, [5])])


@pytest.mark.parametrize("kind", OPS)
def test_constant_first_operand(kind):
    rng = np.random.default_rng(4)
    model = binary16_model(kind, [2, 4], [4], [2, 4], constant=int16_values(rng, [4]), constant_first=True)
    assert_matches_tflm(model, [int16_values(rng, [2, 4])])


def test_known_values():
    """ADD of equal scales with halving output scale doubles exactly; MUL of two Q15 ones is Q15."""
    x = np.array([-32768, -16384, -1, 0, 1, 16383, 32767], np.int16)
    (out,) = assert_matches_tflm(binary16_model("ADD", [7], [7], [7], (1.0, 1.0, 2.0)), [x, x])
    assert out.tolist() == x.tolist()
    (out,) = assert_matches_tflm(binary16_model("MUL", [7], [7], [7], (2 ** -15, 2 ** -15, 2 ** -15)), [x, x])
    assert out.tolist() == [32767, 8192, 0, 0, 0, 8191, 32766]


def refusal(model: bytes) -> str:
    graph = parse_model(model)
    with pytest.raises(ModelError) as info:
        prepare(graph, graph.ops[0])
    return str(info.value)


def test_refusals():
    assert "zero point 3 is not 0" in refusal(binary16_model("MUL", [4], [4], [4], zero_points=(3, 0, 0)))
    assert "overflow" in refusal(binary16_model("MUL", [4], [4], [4], (1.0, 1.0, 0.5)))
    assert "too small" in refusal(binary16_model("ADD", [4], [4], [4], (1.0, 1.0, 1e-6)))
    b = ModelBuilder()
    a, c, out = b.tensor([4], "int16", scale=1.0), b.tensor([4], "int16", scale=1.0), b.tensor([4], "int8", scale=1.0)
    b.op("ADD", [a, c], [out], fused_activation_function=0)
    b.inputs, b.outputs = [a, c], [out]
    assert "output is int8" in refusal(b.build())


def test_sub_scale_ratios_in_double():
    """The elementwise16 fixture's SUB: its ratios computed in float32 (as sub_common's source reads)
    give a multiplier one off and outputs that differ from TFLite Micro's; in double they match."""
    rng = np.random.default_rng(5)
    model = binary16_model("SUB", [4096], [4096], [4096], (4.554435872705653e-05, 3.0517578125e-05,
                                                           2.3234397303895094e-05))
    x, y = rng.integers(-32768, 32768, size=(2, 4096)).astype(np.int16)
    assert_matches_tflm(model, [x, (y // 4).astype(np.int16)])
