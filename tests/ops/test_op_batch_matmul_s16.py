"""BATCH_MATMUL with int16 operands (16x8), against TFLite Micro: ranks 2 to 5, broadcast batch
dimensions, adj_x and adj_y, a constant left or right operand, output scales that shift left and
right and saturate; the interpreter and the sanitized host C; what TFLite Micro refuses is refused."""
from __future__ import annotations

import shutil
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.ops.test_op_batch_matmul import _shapes
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


def build_batch_matmul16(case: dict) -> tuple[bytes, list[np.ndarray]]:
    """A model of one int16 BATCH_MATMUL from `case` (shapes, adjoints, which operand is constant,
    gain, zero points, seed) and its random inputs."""
    rng = np.random.default_rng(case["seed"])
    lhs_shape, rhs_shape = tuple(case["lhs"]), tuple(case["rhs"])
    adj_x, adj_y = case.get("adj_x", False), case.get("adj_y", False)
    rank = max(len(lhs_shape), len(rhs_shape))
    a = (1,) * (rank - len(lhs_shape)) + lhs_shape
    b = (1,) * (rank - len(rhs_shape)) + rhs_shape
    batch = tuple(max(x, y) for x, y in zip(a[:-2], b[:-2]))
    out_shape = batch + ((a[-1] if adj_x else a[-2]), (b[-2] if adj_y else b[-1]))
    builder = ModelBuilder()
    lhs_scale, rhs_scale = float(rng.uniform(1.0, 8.0)) / 32768, float(rng.uniform(1.0, 8.0)) / 32768
    depth = a[-2] if adj_x else a[-1]
    gain = float(case.get("gain", rng.uniform(0.5, 4.0)))
    out_scale = lhs_scale * rhs_scale * gain * np.sqrt(depth) * 8000
    zero_points = case.get("zero_points", (0, 0, 0))
    inputs, operands, activations = [], [], []
    for shape, scale, zp, constant in ((lhs_shape, lhs_scale, zero_points[0], case.get("constant") == "lhs"),
                                       (rhs_shape, rhs_scale, zero_points[1], case.get("constant") == "rhs")):
        data = rng.integers(-32768, 32768, size=shape).astype(np.int16)
        if constant:
            operands.append(builder.const(data, scale=scale, zero_point=zp))
        else:
            operands.append(builder.tensor(shape, "int16", scale=scale, zero_point=zp))
            activations.append(operands[-1])
            inputs.append(data)
    y = builder.tensor(out_shape, "int16", scale=out_scale, zero_point=zero_points[2])
    builder.op("BATCH_MATMUL", operands, [y], adj_x=adj_x, adj_y=adj_y)
    builder.inputs, builder.outputs = activations, [y]
    return builder.build(), inputs


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 5), st.booleans(), st.booleans(), st.sampled_from([None, "rhs", "lhs"]),
       st.sampled_from([0.01, 1.0, 1.0, 50.0]), st.integers(0, 2**31))
def test_batch_matmul16_bit_exact(rank_l, rank_r, adj_x, adj_y, constant, gain, seed):
    rng = np.random.default_rng(seed)
    lhs, rhs = _shapes(rng, rank_l, rank_r, adj_x, adj_y)
    model, inputs = build_batch_matmul16(dict(lhs=lhs, rhs=rhs, adj_x=adj_x, adj_y=adj_y, constant=constant,
                                              gain=gain, seed=seed))
    assert_matches_tflm(model, inputs)


@pytest.mark.parametrize("gain", [1e-5, 1.0, 300.0])
def test_output_scales_shifting_both_ways(gain):
    """An output scale far below and above the product of the operands' (right and left shifts, saturation)."""
    model, inputs = build_batch_matmul16(dict(lhs=[2, 3, 5], rhs=[5, 4], gain=gain, seed=5))
    program = compile_model(model)
    step = next(s for s in program.steps if s.kernel == "BATCH_MATMUL_S16")
    assert (step.params.shift > 0) == (gain < 1e-4)
    out = assert_matches_tflm(model, inputs)[0]
    assert out.dtype == np.int16 and len(np.unique(out)) > 1


def test_the_kernel_can_fail():
    """A wrong multiplier in the params changes the output: the comparison sees the kernel's arithmetic."""
    model, inputs = build_batch_matmul16(dict(lhs=[1, 3, 4], rhs=[1, 4, 2], seed=9))
    program = compile_model(model)
    good = Interpreter(program).run(inputs).outputs[0]
    step = next(s for s in program.steps if s.kernel == "BATCH_MATMUL_S16")
    object.__setattr__(step, "params", replace(step.params, multiplier=step.params.multiplier + (1 << 20)))
    bad = Interpreter(program).run(inputs).outputs[0]
    assert not np.array_equal(good, bad)


@pytest.mark.parametrize("zero_points", [(1, 0, 0), (0, -3, 0), (0, 0, 2)])
def test_nonzero_int16_zero_points_are_refused(zero_points):
    """TFLite Micro's Prepare requires zero points 0 for int16 operands and output."""
    model, _ = build_batch_matmul16(dict(lhs=[2, 3], rhs=[3, 4], zero_points=zero_points, seed=3))
    with pytest.raises(ModelError, match="zero points"):
        compile_model(model)


def test_mixed_types_are_refused_in_one_line():
    b = ModelBuilder()
    x = b.tensor((1, 2, 3), "int16", scale=0.01)
    w = b.tensor((1, 3, 4), "int8", scale=0.01)
    y = b.tensor((1, 2, 4), "int16", scale=0.01)
    b.op("BATCH_MATMUL", [x, w], [y])
    b.inputs, b.outputs = [x, w], [y]
    with pytest.raises(ModelError) as err:
        compile_model(b.build())
    assert "\n" not in str(err.value) and "all int16" in str(err.value)


CHAINED = dict(lhs=[2, 4, 3], rhs=[1, 4, 5], adj_x=True, seed=21)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("case", [CHAINED, dict(lhs=[6, 5], rhs=[2, 3, 5], adj_y=True, constant="lhs", seed=4),
                                  dict(lhs=[3, 1, 2, 4], rhs=[4, 3], constant="rhs", gain=300.0, seed=8)])
def test_batch_matmul16_c_kernel_host(tmp_path, case):
    """vmcu_batch_matmul_s16 built with the sanitizers against the reference interpreter and TFLite Micro."""
    from vmcu_tflite.validate.run import validate
    from vmcu_tflite.validate.targets import SANITIZED_HOST

    path = tmp_path / "bmm16.tflite"
    path.write_bytes(build_batch_matmul16(case)[0])
    v = validate(path, SANITIZED_HOST, seed=case["seed"], planner="vmcu")
    assert v.status == 0
    assert v.matches_reference and v.matches_tflm
