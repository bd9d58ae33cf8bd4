"""ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH and TANH against TFLite Micro: every int8 input value
under random input and output quantization (and alpha), so each table is checked whole; where we
refuse a quantization, TFLite Micro must refuse it too."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.tflite_builder import ModelBuilder

KINDS = ("ABS", "RELU", "RELU6", "LEAKY_RELU", "HARD_SWISH", "TANH")


def log_uniform(rng, low, high) -> float:
    return float(np.exp(rng.uniform(np.log(low), np.log(high))))


def unary_model(kind, rng, shape):
    b = ModelBuilder()
    in_scale = log_uniform(rng, 0.002, 0.5)
    x = b.tensor(shape, scale=in_scale, zero_point=int(rng.integers(-128, 128)))
    if kind == "TANH":
        y = b.tensor(shape, scale=1 / 128, zero_point=0)
    elif rng.random() < 0.25:  # the same quantization: ABS's path without rescaling
        y = b.tensor(shape, scale=in_scale, zero_point=int(rng.integers(-128, 128)))
    else:
        y = b.tensor(shape, scale=log_uniform(rng, 0.002, 0.5), zero_point=int(rng.integers(-128, 128)))
    options = {}
    if kind == "LEAKY_RELU":
        options["alpha"] = float(rng.choice([0.01, 0.1, 0.2, 0.3, 1.5, -0.25]))
    b.op(kind, [x], [y], **options)
    b.inputs, b.outputs = [x], [y]
    return b.build()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(KINDS), st.integers(1, 4), st.integers(0, 2**31))
def test_unary_bit_exact(kind, rank, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 4, size=rank - 1)) + (256,)
    data = rng.permuted(np.broadcast_to(np.arange(-128, 128), shape), axis=-1).astype(np.int8)
    try:
        model = unary_model(kind, rng, shape)
        assert_matches_or_refused_like_tflm(model, [data])
    except Exception as error:  # name the failing case
        raise AssertionError(f"{kind} seed {seed}: {error}") from error
