"""MUL against TFLite Micro: random broadcast shapes (up to 6-D), quantization, activations, constants."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from tests.op_harness import assert_matches_tflm
from tests.ops.test_op_add import binary_cases, build_binary
from tests.tflite_builder import ModelBuilder


def mul_scales(rng):
    s1, s2 = float(rng.uniform(0.002, 0.2)), float(rng.uniform(0.002, 0.2))
    # real multiplier s1 * s2 / so from about 1/2000 to 4, shifts on both sides of zero
    so = s1 * s2 * float(np.exp(rng.uniform(np.log(0.25), np.log(2000.0))))
    return [(s, int(rng.integers(-128, 128))) for s in (s1, s2, so)]


@settings(max_examples=60, deadline=None)
@given(binary_cases())
def test_mul_bit_exact(case):
    model, inputs = build_binary("MUL", case, mul_scales)
    assert_matches_tflm(model, inputs)



def test_mul_square():
    """x * x: the kernel receives the activation once per operand."""
    b = ModelBuilder()
    x = b.tensor((1, 4, 4, 3), scale=0.03, zero_point=11)
    y = b.tensor((1, 4, 4, 3), scale=0.02, zero_point=-128)
    b.op("MUL", [x, x], [y])
    b.inputs, b.outputs = [x], [y]
    data = np.random.default_rng(1).integers(-128, 128, size=(1, 4, 4, 3)).astype(np.int8)
    assert_matches_tflm(b.build(), [data])
