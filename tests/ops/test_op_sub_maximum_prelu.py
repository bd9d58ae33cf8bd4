"""SUB, MAXIMUM, MINIMUM and PRELU against TFLite Micro: random broadcast shapes up to each op's
rank limit, quantization, activations and constant operands."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm
from tests.ops.test_op_add import add_scales, binary_cases, build_binary
from tests.tflite_builder import ModelBuilder

NO_ACTIVATION = st.none()


@settings(max_examples=50, deadline=None)
@given(binary_cases(max_rank=5))
def test_sub_bit_exact(case):
    model, inputs = build_binary("SUB", case, add_scales)
    assert_matches_or_refused_like_tflm(model, inputs)


def same_scales(rng):
    """What the TFLite converter gives MAXIMUM and MINIMUM: one quantization for all three."""
    scale, zero_point = float(rng.uniform(0.002, 0.5)), int(rng.integers(-128, 128))
    return [(scale, zero_point)] * 3


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["MAXIMUM", "MINIMUM"]), binary_cases(max_rank=5, activations=NO_ACTIVATION))
def test_maximum_minimum_bit_exact(kind, case):
    model, inputs = build_binary(kind, case, same_scales)
    assert_matches_or_refused_like_tflm(model, inputs)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 4), st.sampled_from(["channel", "scalar", "full", "activation"]), st.integers(0, 2**31))
def test_prelu_bit_exact(rank, alpha_kind, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 6, size=rank))
    alpha_shape = {"channel": shape[-1:], "scalar": (1,), "full": shape, "activation": shape[-1:]}[alpha_kind]
    in_scale, out_scale, alpha_scale = (float(rng.uniform(0.002, 0.3)) for _ in range(3))
    b = ModelBuilder()
    x = b.tensor(shape, scale=in_scale, zero_point=int(rng.integers(-128, 128)))
    alpha_data = rng.integers(-128, 128, size=alpha_shape).astype(np.int8)
    alpha_zp = int(rng.integers(-128, 128))
    if alpha_kind == "activation":
        alpha = b.tensor(alpha_shape, scale=alpha_scale, zero_point=alpha_zp)
    else:
        alpha = b.const(alpha_data, scale=alpha_scale, zero_point=alpha_zp)
    y = b.tensor(shape, scale=out_scale, zero_point=int(rng.integers(-128, 128)))
    b.op("PRELU", [x, alpha], [y])
    b.inputs = [x, alpha] if alpha_kind == "activation" else [x]
    b.outputs = [y]
    inputs = [rng.integers(-128, 128, size=shape).astype(np.int8)]
    if alpha_kind == "activation":
        inputs.append(alpha_data)
    assert_matches_or_refused_like_tflm(b.build(), inputs)
