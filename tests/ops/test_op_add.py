"""ADD against TFLite Micro: random broadcast shapes (up to 6-D), quantization, activations, constants."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.reader import parse_model

ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@st.composite
def broadcast_shapes(draw, max_rank: int = 6):
    """An output shape and two input shapes that broadcast to it (leading dims may be dropped)."""
    scalar = draw(st.sampled_from([False] * 15 + [True]))  # a 0-D output now and then
    rank = 0 if scalar else draw(st.integers(1, max_rank))
    out = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    if rank and draw(st.booleans()):  # bigger innermost dimension now and then
        out = out[:-1] + (draw(st.integers(1, 24)),)

    def operand():
        kept = draw(st.integers(0, rank))
        return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in out[rank - kept:])

    a, b = operand(), operand()
    return a, b, tuple(np.broadcast_shapes(a, b))


@st.composite
def binary_cases(draw, max_rank: int = 6, activations=ACTIVATIONS):
    """Shapes, which operand is a constant, the fused activation (None: the op has none), a seed."""
    a_shape, b_shape, out_shape = draw(broadcast_shapes(max_rank))
    # which operand, if any, is a constant tensor instead of a graph input
    constant = draw(st.sampled_from([None, None, 0, 1]))
    return dict(shapes=(a_shape, b_shape, out_shape), act=draw(activations), constant=constant,
                seed=draw(st.integers(0, 2**31)))


def build_binary(kind: str, case, scales) -> tuple[bytes, list[np.ndarray]]:
    rng = np.random.default_rng(case["seed"])
    a_shape, b_shape, out_shape = case["shapes"]
    (s1, z1), (s2, z2), (so, zo) = scales(rng)
    b = ModelBuilder()
    datas = [rng.integers(-128, 128, size=s).astype(np.int8) for s in (a_shape, b_shape)]
    operands = []
    for i, (shape, s, z) in enumerate(((a_shape, s1, z1), (b_shape, s2, z2))):
        if case["constant"] == i:
            operands.append(b.const(datas[i], scale=s, zero_point=z))
        else:
            operands.append(b.tensor(shape, scale=s, zero_point=z))
    y = b.tensor(out_shape, scale=so, zero_point=zo)
    options = {} if case["act"] is None else {"fused_activation_function": case["act"]}
    b.op(kind, operands, [y], **options)
    b.inputs = [t for i, t in enumerate(operands) if case["constant"] != i]
    b.outputs = [y]
    return b.build(), [d for i, d in enumerate(datas) if case["constant"] != i]


def add_scales(rng):
    s1, s2 = (float(rng.uniform(0.002, 0.5)) for _ in range(2))
    if rng.integers(0, 4) == 0:
        s2 = s1  # equal scales are common in real models
    so = float(rng.uniform(0.3, 3.0)) * max(s1, s2)
    return [(s, int(rng.integers(-128, 128))) for s in (s1, s2, so)]


@settings(max_examples=60, deadline=None)
@given(binary_cases())
def test_add_bit_exact(case):
    model, inputs = build_binary("ADD", case, add_scales)
    assert_matches_tflm(model, inputs)


def test_add_rejects_output_scale_tflm_cannot_represent():
    b = ModelBuilder()
    x1 = b.tensor((1, 4), scale=1.0, zero_point=0)
    x2 = b.tensor((1, 4), scale=1.0, zero_point=0)
    y = b.tensor((1, 4), scale=1e-7, zero_point=0)  # 2 * 1.0 / (2**20 * 1e-7) > 1
    b.op("ADD", [x1, x2], [y])
    b.inputs, b.outputs = [x1, x2], [y]
    graph = parse_model(b.build())
    with pytest.raises(ModelError, match="ADD"):
        prepare(graph, graph.ops[0])


def test_add_same_tensor_twice():
    """x + x: the kernel receives the activation once per operand."""
    b = ModelBuilder()
    x = b.tensor((2, 3, 5), scale=0.05, zero_point=-7)
    y = b.tensor((2, 3, 5), scale=0.08, zero_point=4)
    b.op("ADD", [x, x], [y], fused_activation_function=1)
    b.inputs, b.outputs = [x], [y]
    data = np.random.default_rng(0).integers(-128, 128, size=(2, 3, 5)).astype(np.int8)
    assert_matches_tflm(b.build(), [data])
