"""PACK against TFLite Micro: 0-D to 4-D inputs, any axis (negative too), 1 to 10 inputs, constants,
inputs quantized like the output or not (TFLite Micro copies the bytes either way)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def build_pack(shape, axis, constants, seed, same_quantization=True, values_count=None, shapes=None, dtype="int8"):
    rng = np.random.default_rng(seed)
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    b = ModelBuilder()
    tensors, feeds = [], []
    for is_const, shape_i in zip(constants, shapes or [shape] * len(constants)):
        s, z = (scale, zp) if same_quantization else (float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128)))
        data = rng.integers(-128, 128, size=shape_i).astype(dtype)
        if is_const:
            tensors.append(b.const(data, scale=s, zero_point=z))
        else:
            tensors.append(b.tensor(shape_i, dtype=dtype, scale=s, zero_point=z))
            feeds.append(data)
    out_shape = list(shape)
    out_shape.insert(axis % (len(shape) + 1), len(constants))
    y = b.tensor(out_shape, dtype=dtype, scale=scale, zero_point=zp)
    b.op("PACK", tensors, [y], values_count=len(constants) if values_count is None else values_count, axis=axis)
    b.inputs, b.outputs = [t for t, c in zip(tensors, constants) if not c], [y]
    return b.build(), feeds


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.sampled_from([1, 2, 3, 4, 10]), st.booleans(), st.integers(0, 2**31))
def test_pack_bit_exact(rank, count, same_quantization, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank - 1, rank + 1))
    constants = [bool(rng.random() < 0.25) for _ in range(count)]
    constants[int(rng.integers(0, count))] = False
    model, feeds = build_pack(shape, axis, constants, seed, same_quantization)
    ours = assert_matches_tflm(model, feeds)
    assert ours[0].shape[axis] == count


def test_pack_of_one_activation_twice():
    """The same tensor packed twice: two operands reading one input."""
    b = ModelBuilder()
    x = b.tensor((2, 3), scale=0.1, zero_point=4)
    y = b.tensor((2, 2, 3), scale=0.1, zero_point=4)
    b.op("PACK", [x, x], [y], values_count=2, axis=-2)
    b.inputs, b.outputs = [x], [y]
    assert_matches_tflm(b.build(), [np.arange(-3, 3, dtype=np.int8).reshape(2, 3)])


@pytest.mark.parametrize("change, message", [
    (dict(values_count=3), "packs 3 values but has 2 inputs"),
    (dict(shapes=[(2, 3), (3, 2)]), r"input 1 shape \(3, 2\) is not the output's"),
    (dict(constants=[False] * 11), "11 inputs; the runtime joins at most 10"),
    (dict(dtype="int32"), "int32 activations are not supported"),  # int16: test_op_int16_data_movement.py
])
def test_pack_refusals(change, message):
    """What TFLite Micro would read outside a tensor for, more operands than the runtime joins, or a
    type the pool does not hold: one line naming the operator."""
    args = dict(shape=(2, 3), axis=1, constants=[False, False], seed=3)
    model, _ = build_pack(**{**args, **change})
    with pytest.raises(ModelError, match=message):
        compile_model(model)
