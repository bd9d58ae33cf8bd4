"""TILE against TFLite's reference kernel (LiteRT: TFLite Micro has no TILE), any rank and multiples."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.oracle import LITERT, oracle_name
from vmcu_tflite.ops.tile import copy_walk
from vmcu_tflite.pipeline import compile_model


@st.composite
def tile_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    multiples = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    return dict(shape=shape, multiples=multiples, int64=draw(st.booleans()), seed=draw(st.integers(0, 2**31)))


def build_tile(case) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(case["seed"])
    shape, multiples = case["shape"], case["multiples"]
    b = ModelBuilder()
    x = b.tensor(shape, scale=0.05, zero_point=-3)
    m = b.const(np.array(multiples, dtype=np.int64 if case["int64"] else np.int32))
    y = b.tensor([n * k for n, k in zip(shape, multiples)], scale=0.05, zero_point=-3)
    b.op("TILE", [x, m], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build(), rng.integers(-128, 128, size=shape).astype(np.int8)


@settings(max_examples=60, deadline=None)
@given(tile_cases())
def test_tile_bit_exact(case):
    model, data = build_tile(case)
    try:
        compile_model(model)
    except ModelError as err:  # more than the copy's 5 axes: refused, never mis-copied
        assert "walks" in str(err) and len(copy_walk(case["shape"], case["multiples"])[0]) > 5
        return
    assert_matches_tflm(model, [data])


def test_the_oracle_of_a_tile_model_is_litert():
    model, _ = build_tile(dict(shape=[1, 3, 4], multiples=[1, 2, 1], int64=False, seed=0))
    assert oracle_name(model) == LITERT


@pytest.mark.parametrize("shape, multiples, dims, strides", [
    ([1, 4, 8], [1, 1, 1], (32,), (1,)),  # nothing tiled: one run
    ([1, 1, 8], [1, 3, 1], (3, 8), (0, 1)),  # a row repeated
    ([2, 3], [2, 2], (2, 2, 2, 3), (0, 3, 0, 1)),
    ([4, 1], [1, 5], (4, 5), (1, 0)),  # each value repeated
])
def test_copy_walk_merges_what_continues(shape, multiples, dims, strides):
    assert copy_walk(shape, multiples) == (dims, strides)
