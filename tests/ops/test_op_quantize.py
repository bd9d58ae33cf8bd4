"""QUANTIZE against TFLite Micro: float32 -> int8 (rounding ties, clamping) and int8 -> int8."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_or_refused_like_tflm, assert_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.ops.op_quantize import quantize_float


def build_quantize(shape, in_dtype, in_quant, out_quant) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, dtype=in_dtype, **in_quant)
    y = b.tensor(shape, scale=out_quant[0], zero_point=out_quant[1])
    b.op("QUANTIZE", [x], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def float_inputs(rng, shape, scale, zero_point) -> np.ndarray:
    """Values spread over and beyond the int8 range, many of them at or next to rounding ties."""
    n = int(np.prod(shape))
    k = rng.integers(-200, 200, size=n) - zero_point
    ties = ((k + 0.5) * np.float32(scale)).astype(np.float32)
    nudged = np.nextafter(ties, rng.choice([-np.inf, np.inf], size=n).astype(np.float32))
    uniform = rng.uniform(-300, 300, size=n).astype(np.float32) * np.float32(scale)
    pick = rng.integers(0, 3, size=n)
    return np.choose(pick, [ties, nudged, uniform]).astype(np.float32).reshape(shape)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**31))
def test_quantize_float_bit_exact(shape, seed):
    rng = np.random.default_rng(seed)
    scale = float(np.exp(rng.uniform(np.log(1e-3), np.log(2.0))))
    zp = int(rng.integers(-128, 128))
    model = build_quantize(shape, "float32", {}, (scale, zp))
    data = float_inputs(rng, shape, scale, zp)
    assert_matches_tflm(model, [data])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**31))
def test_requantize_int8_bit_exact(shape, seed):
    rng = np.random.default_rng(seed)
    in_scale = float(rng.uniform(0.005, 0.5))
    # output scale from 1/64 to 16 times the input's, and sometimes the same
    ratio = 1.0 if rng.integers(0, 5) == 0 else float(np.exp(rng.uniform(np.log(1 / 64), np.log(16.0))))
    in_zp, out_zp = int(rng.integers(-128, 128)), int(rng.integers(-128, 128))
    model = build_quantize(shape, "int8", dict(scale=in_scale, zero_point=in_zp), (in_scale * ratio, out_zp))
    data = rng.integers(-128, 128, size=shape).astype(np.int8)
    assert_matches_tflm(model, [data])


def test_quantize_float_rounds_half_away_from_zero():
    x = np.array([0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, 300.0, -300.0], dtype=np.float32)
    assert quantize_float(x, 1.0, 0).tolist() == [1, -1, 2, -2, 3, -3, 0, 127, -128]
    assert quantize_float(x, 1.0, 10).tolist() == [11, 9, 12, 8, 13, 7, 10, 127, -128]


def test_quantize_float_out_of_range_like_tflm():
    """inf, NaN and huge values: TFLite's float -> int32 cast is undefined there; on x86 it yields
    INT32_MIN, to which the zero point is then added with wrap-around. We reproduce that."""
    x = np.array([np.inf, -np.inf, np.nan, 1e30, -1e30, 3e9, -3e9, 2.2e9, -2.2e9, 0.0], dtype=np.float32)
    for zp in (-100, 0, 100):
        ours = assert_matches_tflm(build_quantize(x.shape, "float32", {}, (1.0, zp)), [x])
        assert ours[0][-1] == zp


def test_quantize_kernel_float_input_matches_tflm():
    """The pipeline turns a boundary QUANTIZE into an I/O conversion; run the kernel itself too."""
    from vmcu_reference.ops import make_kernel
    from vmcu_tflite.oracle import run_tflm
    from vmcu_tflite.ops import prepare
    from vmcu_tflite.reader import parse_model

    rng = np.random.default_rng(3)
    shape, scale, zp = (2, 5, 7), 0.037, -9
    model = build_quantize(shape, "float32", {}, (scale, zp))
    data = float_inputs(rng, shape, scale, zp)
    graph = parse_model(model)
    ours = make_kernel("QUANTIZE", prepare(graph, graph.ops[0])).run(data)
    theirs, _ = run_tflm(model, [data], num_outputs=1)
    assert ours.dtype == np.int8 and ours.shape == shape
    assert np.array_equal(ours, theirs[0])


# 16x8 models' conversions (TFLite Micro's Requantize): every integer pair it runs besides int8 -> int8
WIDE_PAIRS = [("int8", "int16"), ("int16", "int8"), ("int16", "int16"), ("int8", "int32"), ("int16", "int32")]


def wide_quantize_case(rng, in_dtype, out_dtype):
    """Scales of either side from 1/256 to 64 times the other's; zero points anywhere in the types
    (a 16x8 model's int16 ones are 0, TFLite Micro's QUANTIZE takes any); full-scale inputs."""
    in_scale = float(np.exp(rng.uniform(np.log(1e-4), np.log(0.5))))
    ratio = 1.0 if rng.integers(0, 5) == 0 else float(np.exp(rng.uniform(np.log(1 / 64), np.log(256.0))))
    zero = {"int8": lambda: int(rng.integers(-128, 128)),
            "int16": lambda: int(rng.choice([0, rng.integers(-300, 300)])),
            "int32": lambda: int(rng.integers(-1000, 1000))}
    return dict(scale=in_scale, zero_point=zero[in_dtype]()), (in_scale * ratio, zero[out_dtype]())


def build_wide_quantize(shape, in_dtype, out_dtype, in_quant, out_quant) -> bytes:
    b = ModelBuilder()
    x = b.tensor(shape, dtype=in_dtype, **in_quant)
    y = b.tensor(shape, dtype=out_dtype, scale=out_quant[0], zero_point=out_quant[1])
    b.op("QUANTIZE", [x], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def full_scale(rng, shape, dtype) -> np.ndarray:
    """Values over the whole type, its extremes included."""
    info = np.iinfo(dtype)
    data = rng.integers(info.min, info.max, size=shape, endpoint=True)
    flat = data.reshape(-1)
    flat[: min(2, flat.size)] = [info.min, info.max][: min(2, flat.size)]
    return data.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WIDE_PAIRS), st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**31))
def test_requantize_wide_bit_exact(pair, shape, seed):
    rng = np.random.default_rng(seed)
    in_quant, out_quant = wide_quantize_case(rng, *pair)
    model = build_wide_quantize(shape, *pair, in_quant, out_quant)
    assert_matches_or_refused_like_tflm(model, [full_scale(rng, shape, pair[0])])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**31))
def test_quantize_float_to_int16_bit_exact(shape, seed):
    """The float boundary of a 16x8 model: ties, clamping at the int16 extremes."""
    rng = np.random.default_rng(seed)
    scale = float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-2))))
    b = ModelBuilder()
    x = b.tensor(shape, "float32")
    q = b.tensor(shape, "int16", scale=scale, zero_point=0)
    y = b.tensor(shape, "int16", scale=scale * 2, zero_point=0)
    b.op("QUANTIZE", [x], [q])
    b.op("QUANTIZE", [q], [y])  # q is not the graph output: the boundary conversion then feeds a step
    b.inputs, b.outputs = [x], [y]
    n = int(np.prod(shape))
    k = rng.integers(-40000, 40000, size=n)
    data = np.where(rng.integers(0, 2, size=n) == 0, (k + 0.5) * np.float32(scale),
                    rng.uniform(-40000, 40000, size=n) * scale).astype(np.float32).reshape(shape)
    assert_matches_tflm(b.build(), [data])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.integers(0, 2**31))
def test_dequantize_int16_bit_exact(shape, seed):
    """An int16 graph input dequantized at the float boundary (after a step, so that a tensor is in the pool)."""
    rng = np.random.default_rng(seed)
    scale = float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-1))))
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=scale, zero_point=0)
    q = b.tensor(shape, "int16", scale=scale * 0.75, zero_point=0)
    y = b.tensor(shape, "float32")
    b.op("QUANTIZE", [x], [q])
    b.op("DEQUANTIZE", [q], [y])
    b.inputs, b.outputs = [x], [y]
    assert_matches_tflm(b.build(), [full_scale(rng, shape, "int16")])
