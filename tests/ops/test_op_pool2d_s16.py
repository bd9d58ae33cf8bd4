"""int16 AVERAGE_POOL_2D and MAX_POOL_2D (a 16x8 model's) against TFLite Micro: filter sizes, strides,
SAME/VALID, fused activations, zero points 0 (and others), full-scale int16 values, after a PAD that
the passes fold in."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.ops.test_op_average_pool2d import pool_cases, pool_output_hw
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def full_scale(rng, shape) -> np.ndarray:
    data = rng.integers(-32768, 32767, size=shape, endpoint=True)
    if rng.integers(0, 3) == 0:  # windows of extremes: the sums' and the maxima's edges
        data = rng.choice([-32768, 32767], size=shape)
    return data.astype(np.int16)


def build_pool16(kind: str, case, zero_point: int = 0, pad=None) -> tuple[bytes, np.ndarray]:
    """A one-op int16 pool model, or PAD -> pool when `pad` ((top, bottom), (left, right)) is given."""
    rng = np.random.default_rng(case["seed"])
    (h, w), n, c = case["hw"], case["batch"], case["channels"]
    quant = dict(scale=float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-2)))), zero_point=zero_point)
    b = ModelBuilder()
    x = b.tensor((n, h, w, c), "int16", **quant)
    pool_in, pool_hw = x, (h, w)
    if pad is not None:
        (top, bottom), (left, right) = pad
        pool_hw = (h + top + bottom, w + left + right)
        pool_in = b.tensor((n, *pool_hw, c), "int16", **quant)
        b.op("PAD", [x, b.const(np.array([[0, 0], [top, bottom], [left, right], [0, 0]], np.int32))], [pool_in])
    o_h, o_w = pool_output_hw(case, pool_hw)
    y = b.tensor((n, o_h, o_w, c), "int16", **quant)
    b.op(kind, [pool_in], [y], padding=case["padding"], stride_h=case["stride"][0], stride_w=case["stride"][1],
         filter_height=case["filter"][0], filter_width=case["filter"][1], fused_activation_function=case["act"])
    b.inputs, b.outputs = [x], [y]
    return b.build(), full_scale(rng, (n, h, w, c))


@settings(max_examples=60, deadline=None)
@given(pool_cases(), st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]))
def test_pool_int16_bit_exact(case, kind):
    model, data = build_pool16(kind, case)
    assert compile_model(model).plan.steps[0].kernel == f"{kind}_S16"
    assert_matches_tflm(model, [data])


@settings(max_examples=30, deadline=None)
@given(pool_cases(), st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]), st.integers(-300, 300))
def test_pool_int16_other_zero_points(case, kind, zero_point):
    """Zero points other than 0 move only the activation's clamp (TFLite Micro's int16 pools take them)."""
    model, data = build_pool16(kind, case, zero_point)
    assert_matches_or_refused_like_tflm(model, [data])


@settings(max_examples=30, deadline=None)
@given(pool_cases(), st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"]), st.lists(st.integers(0, 2), min_size=4,
                                                                                   max_size=4))
def test_pool_int16_after_a_pad(case, kind, amounts):
    """A PAD folded into a VALID pool: its taps hold 0 and count in the average."""
    case = dict(case, padding=1)
    pad = ((amounts[0], amounts[1]), (amounts[2], amounts[3]))
    model, data = build_pool16(kind, case, pad=pad)
    program = compile_model(model)
    assert len(program.plan.steps) == 1  # folded
    assert_matches_tflm(model, [data])


def test_unquantized_int16_pool_is_refused_in_one_line():
    """int16 tensors without a scale (integers, not a 16x8 model's) are refused, not a traceback."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4, 4, 2), "int16"), b.tensor((1, 2, 2, 2), "int16")
    b.op("MAX_POOL_2D", [x], [y], padding=1, stride_h=2, stride_w=2, filter_height=2, filter_width=2)
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match="MAX_POOL_2D at index 0: the input and the output need a per-tensor scale"):
        compile_model(b.build())
