"""DEQUANTIZE against TFLite Micro: int8 -> float32, bit for bit, for every int8 value."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops.op_dequantize import dequantize


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 3), st.integers(0, 2**31))
def test_dequantize_bit_exact(extra_rank, seed):
    rng = np.random.default_rng(seed)
    # arbitrary float32 scales (not round numbers) so the double product really has to round
    scale = float(np.float32(np.exp(rng.uniform(np.log(1e-4), np.log(10.0)))))
    zp = int(rng.integers(-128, 128))
    shape = tuple(int(d) for d in rng.integers(1, 4, size=extra_rank)) + (256,)
    b = ModelBuilder()
    x = b.tensor(shape, scale=scale, zero_point=zp)
    y = b.tensor(shape, dtype="float32")
    b.op("DEQUANTIZE", [x], [y])
    b.inputs, b.outputs = [x], [y]
    data = rng.permuted(np.broadcast_to(np.arange(-128, 128), shape), axis=-1).astype(np.int8)
    ours = assert_matches_tflm(b.build(), [data])
    assert ours[0].dtype == np.float32


def test_dequantize_rounds_the_double_product_once():
    """scale * (q - zp) is formed in double and then rounded to float32, not multiplied in float32."""
    scale = float(np.float32(0.1))
    q = np.arange(-128, 128).astype(np.int8)
    expected = (np.float64(scale) * (q.astype(np.float64) - 5)).astype(np.float32)
    assert np.array_equal(dequantize(q, scale, 5), expected)


def test_dequantize_kernel_matches_tflm():
    """The pipeline turns a boundary DEQUANTIZE into an I/O conversion; run the kernel itself too."""
    from vmcu_reference.ops import make_kernel
    from vmcu_tflite.oracle import run_tflm
    from vmcu_tflite.ops import prepare
    from vmcu_tflite.reader import parse_model

    shape = (2, 256)
    b = ModelBuilder()
    x = b.tensor(shape, scale=0.0123, zero_point=17)
    y = b.tensor(shape, dtype="float32")
    b.op("DEQUANTIZE", [x], [y])
    b.inputs, b.outputs = [x], [y]
    model = b.build()
    data = np.stack([np.arange(-128, 128), np.arange(127, -129, -1)]).astype(np.int8)
    graph = parse_model(model)
    ours = make_kernel("DEQUANTIZE", prepare(graph, graph.ops[0])).run(data)
    theirs, _ = run_tflm(model, [data], num_outputs=1)
    assert ours.dtype == np.float32 and ours.shape == shape
    assert np.array_equal(ours, theirs[0])
