"""CAST against TFLite Micro: every integer pair it casts (int8, int16, int32, uint32), full-range
values, any shape; float32 and bool are refused in one line. Also the pool's typed tensors: an
int16 graph input, int32/uint32 tensors between steps, an int8 output without quantization."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model

TYPES = ("int8", "int16", "int32", "uint32")


def full_range(rng: np.random.Generator, dtype: str, shape) -> np.ndarray:
    """Uniform values with both ends of the type's range among them."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True).reshape(-1)
    x[:2] = [info.min, info.max][:x.size]
    return x.reshape(shape)


def build_cast_chain(types, shape, seed=0):
    """input of types[0] -> CAST -> ... -> output of types[-1]."""
    b = ModelBuilder()
    x = b.tensor(shape, types[0])
    t = x
    for dtype in types[1:]:
        y = b.tensor(shape, dtype)
        b.op("CAST", [t], [y])
        t = y
    b.inputs, b.outputs = [x], [t]
    return b.build(), [full_range(np.random.default_rng(seed), types[0], shape)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(itertools.product(TYPES, TYPES))), st.lists(st.integers(1, 7), min_size=1, max_size=4),
       st.integers(0, 2**31))
def test_cast_bit_exact(pair, shape, seed):
    model, feeds = build_cast_chain(pair, tuple(shape), seed)
    ours = assert_matches_tflm(model, feeds)
    bits = np.dtype(pair[1]).itemsize * 8
    wrapped = feeds[0].astype(np.int64) % (1 << bits)  # static_cast: the value modulo 2^bits
    assert ours[0].astype(np.int64).reshape(-1).tolist() == [
        v - (1 << bits) if np.dtype(pair[1]).kind == "i" and v >= 1 << (bits - 1) else v for v in wrapped.reshape(-1)]


def test_cast_chain_through_every_type():
    """The audio front end's casts in one graph: int16 -> int32 -> uint32 -> int32 -> int8."""
    model, feeds = build_cast_chain(("int16", "int32", "uint32", "int32", "int8"), (1, 257), seed=3)
    assert_matches_tflm(model, feeds)


def test_typed_tensors_are_placed_aligned_and_whole():
    """Every tensor of elements wider than a byte starts at a multiple of its element size and never
    crosses the end of the pool (the kernels read whole elements)."""
    model, _ = build_cast_chain(("int8", "int16", "int8", "int32", "int8", "uint32", "int16"), (3, 7))
    for planner in ("tensor", "vmcu"):
        program = compile_model(model, planner)
        for t, offset in program.plan.offsets.items():
            size = np.dtype(program.graph.tensors[t].dtype).itemsize
            assert offset % size == 0 and offset + program.plan.buffers[t].size <= program.plan.pool_bytes, (t, planner)


@pytest.mark.parametrize("types, message", [
    (("float32", "int32"), "float activations are not supported"),  # the reader's type blocker
    (("int32", "bool"), "bool activations are not supported|output type BOOL not supported"),
    (("int16", "float32"), "float activations are not supported"),
])
def test_cast_refusals(types, message):
    b = ModelBuilder()
    x, y = b.tensor((4,), types[0]), b.tensor((4,), types[1])
    b.op("CAST", [x], [y])
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match=message):
        compile_model(b.build())


def test_cast_of_different_sizes_is_refused():
    b = ModelBuilder()
    x, y = b.tensor((4,), "int16"), b.tensor((5,), "int32")
    b.op("CAST", [x], [y])
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match="different numbers of elements"):
        compile_model(b.build())


def build_typed_copies(seed: int = 0):
    """micro_speech's padding of its spectrum, in small: int16 -> CAST int32 -> STRIDED_SLICE of the
    bins -> CONCATENATION with int32 zero constants -> CAST uint32, and an int16 slice and join."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor((2, 9), "int16")
    wide, bins, padded, out = b.tensor((2, 9), "int32"), b.tensor((2, 5), "int32"), b.tensor((2, 8), "int32"), \
        b.tensor((2, 8), "uint32")
    b.op("CAST", [x], [wide])
    vectors = [b.const(np.array(v, np.int32)) for v in ([0, 2], [2, 7], [1, 1])]
    b.op("STRIDED_SLICE", [wide, *vectors], [bins])
    b.op("CONCATENATION", [b.const(np.zeros((2, 2), np.int32)), bins, b.const(np.full((2, 1), -7, np.int32))],
         [padded], axis=1)
    b.op("CAST", [padded], [out])
    half, joined = b.tensor((1, 9), "int16"), b.tensor((1, 18), "int16")
    vectors = [b.const(np.array(v, np.int32)) for v in ([1, 0], [2, 9], [1, 1])]
    b.op("STRIDED_SLICE", [x, *vectors], [half])
    b.op("CONCATENATION", [half, half], [joined], axis=1)
    b.inputs, b.outputs = [x], [out, joined]
    return b.build(), [full_range(rng, "int16", (2, 9))]


def test_int32_and_int16_slices_and_joins():
    model, feeds = build_typed_copies()
    assert_matches_tflm(model, feeds)
