"""EXPAND_DIMS against TFLite Micro: an alias of its input's bytes (no step), 0-D to 4-D inputs, any
axis (negative ones count over the output's rank), at the graph's input, inside it and at its output;
what TFLite Micro's Prepare refuses is refused in one line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def build_expand_dims(shape, axis, where, seed, axis_dtype="int32", out_shape=None, axis_constant=True):
    """x -> [ABS ->] EXPAND_DIMS [-> ABS] -> y: `where` says which side the ABS is on ("first": the
    EXPAND_DIMS ends the graph; "last": it reads the graph input)."""
    rng = np.random.default_rng(seed)
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    expanded = list(shape)
    expanded.insert(axis % (len(shape) + 1), 1)
    b = ModelBuilder()
    x = b.tensor(shape, scale=scale, zero_point=zp)
    a = b.tensor(shape, scale=scale, zero_point=zp) if where == "first" else x
    if where == "first":
        b.op("ABS", [x], [a])
    e = b.tensor(out_shape or expanded, scale=scale, zero_point=zp)
    axis_tensor = b.const(np.array(axis, dtype=axis_dtype)) if axis_constant else b.tensor((), dtype=axis_dtype)
    b.op("EXPAND_DIMS", [a, axis_tensor], [e])
    y = e
    if where == "last":
        y = b.tensor(out_shape or expanded, scale=scale, zero_point=zp)
        b.op("ABS", [e], [y])
    b.inputs = [x] if axis_constant else [x, axis_tensor]
    b.outputs = [y]
    return b.build(), [rng.integers(-128, 128, size=shape).astype(np.int8)]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4), st.sampled_from(["first", "last"]), st.integers(0, 2**31))
def test_expand_dims_bit_exact(rank, where, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank - 1, rank + 1))
    model, feeds = build_expand_dims(shape, axis, where, seed)
    ours = assert_matches_tflm(model, feeds)
    assert ours[0].ndim == rank + 1 and ours[0].shape[axis] == 1


def test_expand_dims_is_an_alias():
    """No step and no copy: the output shares the input's bytes."""
    model, _ = build_expand_dims((1, 6, 3), -3, "first", seed=1)
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["ABS"]
    assert program.graph.storage_of(program.graph.outputs[0].tensor) == program.steps[0].outputs[0]


@pytest.mark.parametrize("change, message", [
    (dict(axis_dtype="int64"), "must be one constant int32 value"),
    # an alias now takes a pool tensor of any integer type: its prepare refuses the activation axis
    (dict(axis_constant=False), "axis, tensor 2, must be one constant int32 value .* not an activation"),
    (dict(axis=4), "axis 4 is out of range for a 2-D input"),
    (dict(out_shape=(1, 3, 2)), r"turns shape \(3, 2\) into \(1, 3, 2\), not \(3, 2, 1\)"),
])
def test_expand_dims_refusals(change, message):
    """TFLite Micro's Prepare refuses these too (an int64 axis, a non-constant one, an output that
    is not the input with a 1 at the axis)."""
    args = dict(shape=(3, 2), axis=-1, where="last", seed=4)
    model, feeds = build_expand_dims(**{**args, **change})
    with pytest.raises(ModelError, match=message):
        compile_model(model)
    if change.get("axis_constant", True) and "axis" not in change:
        assert assert_matches_or_refused_like_tflm(model, feeds) is None
