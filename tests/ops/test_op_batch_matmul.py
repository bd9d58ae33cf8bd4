"""BATCH_MATMUL, int8, against TFLite Micro: ranks 2 to 5, broadcast batch dimensions, adj_x and
adj_y, a constant or activation right (or left) operand, zero points and output scales that
shift left and right; int16 operands go to their own step kind."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.pipeline import compile_model


def build_batch_matmul(case: dict) -> tuple[bytes, list[np.ndarray]]:
    """A model of one BATCH_MATMUL from `case` (shapes, adjoints, which operand is constant,
    scales, zero points, seed) and its random inputs."""
    rng = np.random.default_rng(case["seed"])
    lhs_shape, rhs_shape = tuple(case["lhs"]), tuple(case["rhs"])
    adj_x, adj_y = case.get("adj_x", False), case.get("adj_y", False)
    rank = max(len(lhs_shape), len(rhs_shape))
    a = (1,) * (rank - len(lhs_shape)) + lhs_shape
    b = (1,) * (rank - len(rhs_shape)) + rhs_shape
    batch = tuple(max(x, y) for x, y in zip(a[:-2], b[:-2]))
    out_shape = batch + ((a[-1] if adj_x else a[-2]), (b[-2] if adj_y else b[-1]))
    builder = ModelBuilder()
    lhs_zp, rhs_zp, out_zp = (int(rng.integers(-128, 128)) for _ in range(3))
    lhs_scale, rhs_scale = float(rng.uniform(0.01, 0.1)), float(rng.uniform(0.01, 0.1))
    depth = a[-2] if adj_x else a[-1]
    out_scale = lhs_scale * rhs_scale * float(case.get("gain", rng.uniform(0.5, 4.0))) * np.sqrt(depth) * 30
    inputs, operands, activations = [], [], []
    for shape, scale, zp, constant in ((lhs_shape, lhs_scale, lhs_zp, case.get("constant") == "lhs"),
                                       (rhs_shape, rhs_scale, rhs_zp, case.get("constant") == "rhs")):
        data = rng.integers(-128, 128, size=shape).astype(np.int8)
        if constant:
            operands.append(builder.const(data, scale=scale, zero_point=zp))
        else:
            operands.append(builder.tensor(shape, scale=scale, zero_point=zp))
            activations.append(operands[-1])
            inputs.append(data)
    y = builder.tensor(out_shape, scale=out_scale, zero_point=out_zp)
    builder.op("BATCH_MATMUL", operands, [y], adj_x=adj_x, adj_y=adj_y)
    builder.inputs, builder.outputs = activations, [y]
    return builder.build(), inputs


def chained_batch_matmuls() -> bytes:
    """Two BATCH_MATMULs for the C kernel tests: activations with a broadcast batch and adj_x, then
    a constant left operand with adj_y, its batch broadcast against the first product's."""
    rng = np.random.default_rng(21)
    b = ModelBuilder()
    x1 = b.tensor((2, 4, 3), scale=0.05, zero_point=-7)
    x2 = b.tensor((1, 4, 5), scale=0.04, zero_point=12)
    y1 = b.tensor((2, 3, 5), scale=0.09, zero_point=-3)
    b.op("BATCH_MATMUL", [x1, x2], [y1], adj_x=True)
    w = b.const(rng.integers(-128, 128, (6, 5)).astype(np.int8), scale=0.02, zero_point=4)
    y2 = b.tensor((2, 6, 3), scale=0.2, zero_point=9)
    b.op("BATCH_MATMUL", [w, y1], [y2], adj_y=True)
    b.inputs, b.outputs = [x1, x2], [y2]
    return b.build()


def test_chained_batch_matmuls_bit_exact():
    rng = np.random.default_rng(2)
    assert_matches_tflm(chained_batch_matmuls(), [rng.integers(-128, 128, s).astype(np.int8)
                                                  for s in ((2, 4, 3), (1, 4, 5))])


def _shapes(rng, rank_l: int, rank_r: int, adj_x: bool, adj_y: bool):
    m, k, n = (int(d) for d in rng.integers(1, 7, size=3))
    rank = max(rank_l, rank_r)
    batch = [int(d) for d in rng.integers(1, 4, size=rank - 2)]
    lhs_batch = [d if rng.random() < 0.6 else 1 for d in batch][rank - rank_l:]
    rhs_batch = [d if rng.random() < 0.6 else 1 for d in batch][rank - rank_r:]
    lhs = lhs_batch + ([k, m] if adj_x else [m, k])
    rhs = rhs_batch + ([n, k] if adj_y else [k, n])
    return lhs, rhs


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 5), st.booleans(), st.booleans(), st.sampled_from([None, "rhs", "lhs"]),
       st.integers(0, 2**31))
def test_batch_matmul_bit_exact(rank_l, rank_r, adj_x, adj_y, constant, seed):
    rng = np.random.default_rng(seed)
    lhs, rhs = _shapes(rng, rank_l, rank_r, adj_x, adj_y)
    model, inputs = build_batch_matmul(dict(lhs=lhs, rhs=rhs, adj_x=adj_x, adj_y=adj_y, constant=constant, seed=seed))
    assert_matches_tflm(model, inputs)


@pytest.mark.parametrize("gain", [0.002, 1.0, 60.0])
def test_output_scales_shifting_both_ways(gain):
    """An output scale far below and above the product of the operands' (left and right shifts)."""
    model, inputs = build_batch_matmul(dict(lhs=[2, 3, 5], rhs=[5, 4], gain=gain, seed=5))
    out = assert_matches_tflm(model, inputs)[0]
    assert len(np.unique(out)) > 1


def test_the_kernel_can_fail():
    """A wrong zero point in the params changes the output: the comparison sees the kernel's arithmetic."""
    model, inputs = build_batch_matmul(dict(lhs=[1, 3, 4], rhs=[1, 4, 2], adj_y=False, seed=9))
    program = compile_model(model)
    good = Interpreter(program).run(inputs).outputs[0]
    step = next(s for s in program.steps if s.kernel == "BATCH_MATMUL")
    object.__setattr__(step, "params", replace(step.params, lhs_zero_point=step.params.lhs_zero_point + 1))
    bad = Interpreter(program).run(inputs).outputs[0]
    assert not np.array_equal(good, bad)


def test_int16_operands_take_the_16x8_step():
    """int16 operands are BATCH_MATMUL_S16 (tests/ops/test_op_batch_matmul_s16.py checks it)."""
    b = ModelBuilder()
    x, w, y = (b.tensor(s, "int16", scale=0.01) for s in ((1, 2, 3), (1, 3, 4), (1, 2, 4)))
    b.op("BATCH_MATMUL", [x, w], [y])
    b.inputs, b.outputs = [x, w], [y]
    assert [s.kernel for s in compile_model(b.build()).steps] == ["BATCH_MATMUL_S16"]
