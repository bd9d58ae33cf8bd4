"""ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH and TANH against TFLite Micro: every int8 input value
under random input and output quantization (and alpha), so each table is checked whole; where we
refuse a quantization, TFLite Micro must refuse it too."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
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


# An output scale 2/3 of the input's (float32): the ratio divided in float32 is exactly 1.5, in
# double 1.49999997, so the two quantized multipliers round odd differences apart.
THIRDS = (0.02114206925034523, 0.014094713144004345)


@pytest.mark.parametrize("kind", ["RELU", "ABS", "LEAKY_RELU"])
def test_the_rescale_ratio_is_divided_in_double(kind):
    """TFLite Micro's CalculateReluOpData (RELU), SetAbsOutputMultiplier (ABS) and, as its build computes
    it, CalculateOpDataLeakyRelu (LEAKY_RELU's identity) divide the float32 scales in double before
    QuantizeMultiplier. With these scales the float32 quotient is 1.5
    exactly and the double one just below, which moves every odd input (counted from the zero
    point) one step: every int8 value through the op, bit-exact with TFLite Micro."""
    in_scale, out_scale = THIRDS
    ratio32 = float(np.float32(in_scale) / np.float32(out_scale))
    assert ratio32 == 1.5 and float(np.float32(in_scale)) / float(np.float32(out_scale)) < 1.5
    b = ModelBuilder()
    x = b.tensor((256,), scale=in_scale, zero_point=-128)
    y = b.tensor((256,), scale=out_scale, zero_point=-128)
    b.op(kind, [x], [y], **({"alpha": 0.2} if kind == "LEAKY_RELU" else {}))
    b.inputs, b.outputs = [x], [y]
    data = np.arange(-128, 128).astype(np.int8)
    ours = assert_matches_tflm(b.build(), [data])[0].astype(np.int64)
    steps = np.abs(data.astype(np.int64) + 128)
    odd = (steps % 2 == 1) & (steps * 3 // 2 + 1 <= 255)
    assert (ours[odd] + 128 == steps[odd] * 3 // 2).all()  # 1.5 x rounded down, not up
