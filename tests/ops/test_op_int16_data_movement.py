"""The data-movement ops of a 16x8 model (int16 activations: zero points 0, any scale) against TFLite
Micro (LiteRT for TILE): PAD, PADV2, TRANSPOSE, SPLIT, SPLIT_V, PACK, UNPACK, TILE, CONCATENATION,
STRIDED_SLICE and the RESHAPE alias, over random shapes and full-scale int16 values."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def full_scale(rng, shape) -> np.ndarray:
    data = rng.integers(-32768, 32767, size=shape, endpoint=True)
    flat = data.reshape(-1)
    flat[: min(2, flat.size)] = [-32768, 32767][: min(2, flat.size)]
    return data.astype(np.int16)


def q16(rng) -> dict:
    return dict(scale=float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-1)))), zero_point=0)


def one_op(kind, shape, out_shapes, constants=(), options=None, rng=None, extra_inputs=0, outputs_quant=None):
    """A model of one op on an int16 input of `shape` (plus `extra_inputs` more int16 inputs of it)."""
    b = ModelBuilder()
    quant = q16(rng)
    xs = [b.tensor(shape, "int16", **quant) for _ in range(1 + extra_inputs)]
    ys = [b.tensor(s, "int16", **(outputs_quant or quant)) for s in out_shapes]
    inputs = list(constants[0]) if constants and isinstance(constants[0], list) else None
    b.op(kind, (inputs or []) + xs + [b.const(c) for c in constants if not isinstance(c, list)], ys, **(options or {}))
    b.inputs, b.outputs = xs, ys
    return b.build(), [full_scale(rng, shape) for _ in xs]


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(shapes, st.integers(0, 2**31), st.booleans())
def test_pad_int16(shape, seed, v2):
    rng = np.random.default_rng(seed)
    paddings = np.array([[int(rng.integers(0, 3)), int(rng.integers(0, 3))] for _ in shape], dtype=np.int32)
    out = [d + lo + hi for d, (lo, hi) in zip(shape, paddings)]
    b = ModelBuilder()
    quant = q16(rng)
    x, y = b.tensor(shape, "int16", **quant), b.tensor(out, "int16", **quant)
    inputs = [x, b.const(paddings)]
    if v2:  # two equal bytes (the byte kernel) or any int16 (PAD_S16)
        value = int(rng.choice([0, -1, int(rng.integers(-32768, 32768))]))
        inputs.append(b.const(np.array([value], dtype=np.int16), **quant))
    b.op("PADV2" if v2 else "PAD", inputs, [y])
    b.inputs, b.outputs = [x], [y]
    assert_matches_tflm(b.build(), [full_scale(rng, shape)])


@pytest.mark.parametrize("value, kind", [(0, "PADV2"), (-1, "PADV2"), (0x0101, "PADV2"), (300, "PAD_S16"),
                                         (-32768, "PAD_S16")])
def test_padv2_int16_value_picks_the_kernel(value, kind):
    """A pad value of two equal bytes is filled by the byte kernel, any other by PAD_S16's."""
    rng = np.random.default_rng(1)
    b = ModelBuilder()
    quant = q16(rng)
    x, y = b.tensor((2, 3), "int16", **quant), b.tensor((2, 5), "int16", **quant)
    b.op("PADV2", [x, b.const(np.array([[0, 0], [1, 1]], np.int32)), b.const(np.array([value], np.int16), **quant)],
         [y])
    b.inputs, b.outputs = [x], [y]
    assert [s.kernel for s in compile_model(b.build()).plan.steps] == [kind]
    out = assert_matches_tflm(b.build(), [full_scale(rng, (2, 3))])[0]
    assert (out[:, [0, 4]] == value).all()


@settings(max_examples=40, deadline=None)
@given(shapes, st.integers(0, 2**31))
def test_transpose_int16(shape, seed):
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(shape)).astype(np.int32)
    model, data = one_op("TRANSPOSE", shape, [[shape[p] for p in perm]], [perm], rng=rng)
    assert_matches_tflm(model, data)


@settings(max_examples=40, deadline=None)
@given(shapes, st.integers(0, 2**31), st.booleans())
def test_split_int16(shape, seed, variable):
    rng = np.random.default_rng(seed)
    axis = int(rng.integers(0, len(shape)))
    b = ModelBuilder()
    quant = q16(rng)
    x = b.tensor(shape, "int16", **quant)
    if variable:
        cuts = np.sort(rng.integers(0, shape[axis] + 1, size=int(rng.integers(0, 3))))
        sizes = np.diff(np.concatenate([[0], cuts, [shape[axis]]])).astype(np.int32)
        sizes = sizes[sizes > 0] if (sizes > 0).any() else np.array([shape[axis]], np.int32)
    else:
        parts = int(rng.choice([k for k in range(1, shape[axis] + 1) if shape[axis] % k == 0]))
        sizes = np.full(parts, shape[axis] // parts, np.int32)
    ys = [b.tensor([int(s) if a == axis else d for a, d in enumerate(shape)], "int16", **quant) for s in sizes]
    axis_t = b.const(np.array([axis], np.int32))
    if variable:
        b.op("SPLIT_V", [x, b.const(sizes), axis_t], ys, num_splits=len(sizes))
    else:
        b.op("SPLIT", [axis_t, x], ys, num_splits=len(sizes))
    b.inputs, b.outputs = [x], ys
    assert_matches_tflm(b.build(), [full_scale(rng, shape)])


@settings(max_examples=30, deadline=None)
@given(shapes, st.integers(0, 2**31), st.integers(1, 3))
def test_pack_unpack_int16(shape, seed, count):
    rng = np.random.default_rng(seed)
    axis = int(rng.integers(0, len(shape) + 1))
    packed = shape[:axis] + [count] + shape[axis:]
    model, data = one_op("PACK", shape, [packed], rng=rng, extra_inputs=count - 1,
                         options=dict(values_count=count, axis=axis))
    assert_matches_tflm(model, data)
    axis = int(rng.integers(0, len(shape)))
    kept = shape[:axis] + shape[axis + 1:]
    model, data = one_op("UNPACK", shape, [kept] * shape[axis], rng=rng, options=dict(num=shape[axis], axis=axis))
    assert_matches_tflm(model, data)


@settings(max_examples=30, deadline=None)
@given(shapes, st.integers(0, 2**31))
def test_tile_int16(shape, seed):
    rng = np.random.default_rng(seed)
    multiples = np.array([int(rng.choice([1, 1, 2, 3])) for _ in shape], np.int32)
    model, data = one_op("TILE", shape, [[d * m for d, m in zip(shape, multiples)]], [multiples], rng=rng)
    try:
        compile_model(model)
    except ModelError as err:
        assert "walks" in str(err)  # more separated tiled axes than the copy walks: as for int8
        return
    assert_matches_tflm(model, data)


@settings(max_examples=30, deadline=None)
@given(shapes, st.integers(0, 2**31), st.integers(1, 3))
def test_concatenation_and_slice_int16(shape, seed, count):
    """Quantized int16 operands of one scale (a 16x8 model's), then a slice of the result, through a RESHAPE."""
    rng = np.random.default_rng(seed)
    axis = int(rng.integers(0, len(shape)))
    joined = [d * count if a == axis else d for a, d in enumerate(shape)]
    b = ModelBuilder()
    quant = q16(rng)
    xs = [b.tensor(shape, "int16", **quant) for _ in range(count)]
    j = b.tensor(joined, "int16", **quant)
    b.op("CONCATENATION", xs, [j], axis=axis)
    flat = b.tensor([int(np.prod(joined))], "int16", **quant)
    b.op("RESHAPE", [j, b.const(np.array([-1], np.int32))], [flat], new_shape=[-1])
    n = int(np.prod(joined))
    begin, stride = int(rng.integers(0, n)), int(rng.integers(1, 3))
    y = b.tensor([len(range(begin, n, stride))], "int16", **quant)
    b.op("STRIDED_SLICE", [flat, *(b.const(np.array([v], np.int32)) for v in (begin, n, stride))], [y])
    b.inputs, b.outputs = xs, [j, y]
    assert_matches_tflm(b.build(), [full_scale(rng, shape) for _ in xs])


def test_gather_int16_is_refused_as_tflite_micro_refuses_it():
    """TFLite Micro's GATHER takes no int16 data: refused in one line naming the operator."""
    rng = np.random.default_rng(0)
    b = ModelBuilder()
    quant = q16(rng)
    x, y = b.tensor((4, 3), "int16", **quant), b.tensor((2, 3), "int16", **quant)
    b.op("GATHER", [x, b.const(np.array([3, 1], np.int32))], [y], axis=0)
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match=r"int16 activations are not supported yet by GATHER \(tensor 0"):
        compile_model(b.build())
    assert assert_matches_or_refused_like_tflm(b.build(), [full_scale(rng, (4, 3))]) is None


def test_an_int16_nchw_transpose_starts_no_chain():
    """A chain's first TRANSPOSE reads int8 pixels: an int16 one stays a step of its own."""
    from vmcu_tflite.fusion import _starts_chain

    rng = np.random.default_rng(2)
    model, data = one_op("TRANSPOSE", [1, 3, 4, 5], [[1, 4, 5, 3]], [np.array([0, 2, 3, 1], np.int32)], rng=rng)
    program = compile_model(model)
    assert [s.kernel for s in program.plan.steps] == ["TRANSPOSE"] and not _starts_chain(program.steps[0])
    assert_matches_tflm(model, data)
