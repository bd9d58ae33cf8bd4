"""int16 MEAN (a 16x8 model's) against TFLite Micro: any axes, keep_dims, the same scale or another,
zero points 0 (and others), full-scale int16 values."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.ops.test_op_mean import mean_cases, reduced_shape
from tests.tflite_builder import ModelBuilder
from vmcu_tflite.pipeline import compile_model


def build_mean16(case, in_q, out_q) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(case["seed"])
    b = ModelBuilder()
    x = b.tensor(case["shape"], "int16", scale=in_q[0], zero_point=in_q[1])
    y = b.tensor(reduced_shape(case["shape"], case["axes"], case["keep_dims"]), "int16", scale=out_q[0],
                 zero_point=out_q[1])
    b.op("MEAN", [x, b.const(np.array(case["axes"], dtype=np.int32))], [y], keep_dims=case["keep_dims"])
    b.inputs, b.outputs = [x], [y]
    data = rng.integers(-32768, 32767, size=case["shape"], endpoint=True)
    if rng.integers(0, 3) == 0:
        data = rng.choice([-32768, 32767], size=case["shape"])
    return b.build(), data.astype(np.int16)


def scales(case):
    rng = np.random.default_rng(case["seed"] + 1)
    in_scale = float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-2))))
    return in_scale, in_scale * (case["scale_ratio"] or float(np.exp(rng.uniform(-1.4, 1.4))))


@settings(max_examples=60, deadline=None)
@given(mean_cases())
def test_mean_int16_bit_exact(case):
    in_scale, out_scale = scales(case)
    model, data = build_mean16(case, (in_scale, 0), (out_scale, 0))
    assert compile_model(model).plan.steps[0].kernel == "MEAN_S16"
    assert_matches_tflm(model, [data])


@settings(max_examples=30, deadline=None)
@given(mean_cases(), st.integers(-500, 500), st.integers(-500, 500))
def test_mean_int16_other_zero_points(case, in_zp, out_zp):
    in_scale, out_scale = scales(case)
    model, data = build_mean16(case, (in_scale, in_zp), (out_scale, out_zp))
    assert_matches_or_refused_like_tflm(model, [data])
