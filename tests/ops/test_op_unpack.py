"""UNPACK against TFLite Micro: 1-D to 5-D inputs, any axis (negative too), outputs quantized like
the input or not (TFLite Micro copies the bytes either way)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def build_unpack(shape, axis, seed, same_quantization=True, num=None, out_shapes=None, dtype="int8"):
    rng = np.random.default_rng(seed)
    scale, zp = float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128))
    b = ModelBuilder()
    x = b.tensor(shape, dtype=dtype, scale=scale, zero_point=zp)
    kept = tuple(d for a, d in enumerate(shape) if a != axis % len(shape))
    count = shape[axis]
    outs = []
    for shape_i in out_shapes or [kept] * count:
        s, z = (scale, zp) if same_quantization else (float(rng.uniform(0.01, 0.5)), int(rng.integers(-128, 128)))
        outs.append(b.tensor(shape_i, dtype=dtype, scale=s, zero_point=z))
    b.op("UNPACK", [x], outs, num=count if num is None else num, axis=axis)
    b.inputs, b.outputs = [x], outs
    return b.build(), [rng.integers(-128, 128, size=shape).astype(dtype)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.booleans(), st.integers(0, 2**31))
def test_unpack_bit_exact(rank, same_quantization, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rank))
    axis = int(rng.integers(-rank, rank))
    model, feeds = build_unpack(shape, axis, seed, same_quantization)
    ours = assert_matches_tflm(model, feeds)
    assert [o.tobytes() for o in ours] == [np.take(feeds[0], i, axis=axis).tobytes() for i in range(shape[axis])]


def test_unpack_of_the_time_axis_with_a_batch():
    """[2, 3, 4] along axis 1 (a batch of sequences): each output [2, 4] gathers rows 4 bytes apart."""
    model, feeds = build_unpack((2, 3, 4), 1, seed=5)
    assert_matches_tflm(model, feeds)


@pytest.mark.parametrize("change, message", [
    (dict(num=2), "unpacks 2 values into 3 outputs"),
    (dict(out_shapes=[(2, 4), (2, 4), (4, 2)]), r"output shape \(4, 2\) is not the input's"),
    (dict(axis=3), "axis 3 is out of range for a 3-D input"),
    (dict(dtype="int32"), "int32 activations are not supported"),  # int16: test_op_int16_data_movement.py
])
def test_unpack_refusals(change, message):
    """What TFLite Micro would read or write outside a tensor for, or a type the pool does not hold:
    one line naming the operator."""
    args = dict(shape=(2, 3, 4), axis=1, seed=2)
    if change.get("axis") == 3:
        model = _unpack_out_of_range()
    else:
        model, _ = build_unpack(**args, **change)
    with pytest.raises(ModelError, match=message):
        compile_model(model)


def _unpack_out_of_range() -> bytes:
    b = ModelBuilder()
    x = b.tensor((2, 3, 4), scale=0.1, zero_point=0)
    y = b.tensor((2, 3), scale=0.1, zero_point=0)
    b.op("UNPACK", [x], [y], num=1, axis=3)
    b.inputs, b.outputs = [x], [y]
    return b.build()
