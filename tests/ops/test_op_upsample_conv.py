"""A RESIZE_NEAREST_NEIGHBOR -> CONV_2D pair, 16x8 or int8, the upsample folded into the convolution
(`passes.fold_upsamples`), against TFLite Micro.

Factors 1 to 3 on each axis, with and without padding, strides and dilations, windows gathered and
read tap by tap, the RESIZE's coordinate options (half_pixel_centers folds, align_corners does not
where its table is no integer factor's); a RESIZE with a second reader stays a step of its own. Each
case runs in the interpreter, which checks the description's loads against the plan and its stores
against TFLite's formula, then against TFLite Micro; a description that reads a wrong source row fails.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.ops.test_op_int16_heavy import SAME, VALID, _bias, _out_size, int16_inputs
from tests.tflite_builder import ModelBuilder, random_weights
from vmcu_reference import interpreter as interpreter_module
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import MismatchError
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.index import CeilDiv, Const, FloorDiv, Max, Min, Sum
from vmcu_tflite.kernels.ir import RAMLoad
from vmcu_tflite.kernels.window import conv_way
from vmcu_tflite.ops.resize_nearest_neighbor import nearest_neighbor_indices
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import streaming

from tests.kernels.test_mutations import _mutated_describe, changed


def build_upsample_conv(shape=(1, 4, 4, 3), factors=(2, 2), c_out=4, k=(3, 3), stride=(1, 1), dilation=(1, 1),
                        padding=SAME, align_corners=False, half_pixel=False, second_reader=False, bias="int64",
                        seed=1, dtype="int16", up_scale=1.0):
    """RESIZE_NEAREST_NEIGHBOR of an int16 (or int8) input to `factors` times its height and width, then
    a CONV_2D over the upsampled tensor; with `second_reader` the upsampled tensor is a graph output too.
    An int8 pair has non-zero zero points (the padding then reads the input's) and an int32 bias."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    n, h, w, c = shape
    big = (n, h * factors[0], w * factors[1], c)
    int8 = dtype == "int8"
    in_scale = float(rng.uniform(1e-4, 1e-3)) if not int8 else float(rng.uniform(0.01, 0.05))
    ws = rng.uniform(0.001, 0.05, size=c_out)
    out_scale = float(in_scale * ws.mean() * (2000.0 if not int8 else 100.0) * np.sqrt(k[0] * k[1] * c))
    zp, out_zp = (int(rng.integers(-20, 20)), int(rng.integers(-20, 20))) if int8 else (0, 0)
    bias = "int32" if int8 and bias is not None else bias
    x = b.tensor(list(shape), dtype, scale=in_scale, zero_point=zp)
    up = b.tensor(list(big), dtype, scale=in_scale * up_scale, zero_point=zp)  # up_scale != 1: the RESIZE relabels
    b.op("RESIZE_NEAREST_NEIGHBOR", [x, b.const(np.array(big[1:3], dtype=np.int32))], [up],
         align_corners=align_corners, half_pixel_centers=half_pixel)
    f = b.const(random_weights(rng, (c_out, k[0], k[1], c)), scale=ws, zero_point=0, axis=0)
    o_h, o_w = (_out_size(s, kk, st_, d, padding) for s, kk, st_, d in zip(big[1:3], k, stride, dilation))
    y = b.tensor([n, o_h, o_w, c_out], dtype, scale=out_scale, zero_point=out_zp)
    biases = _bias(b, rng, bias, c_out, in_scale * ws, 12 if int8 else 22)
    b.op("CONV_2D", [up, f] + biases, [y], padding=padding, stride_h=stride[0], stride_w=stride[1],
         dilation_h_factor=dilation[0], dilation_w_factor=dilation[1], fused_activation_function=0)
    b.inputs, b.outputs = [x], [y, up] if second_reader else [y]
    data = rng.integers(-128, 128, size=shape).astype(np.int8) if int8 else int16_inputs(rng, shape)
    return b.build(), data


def _folded(program) -> bool:
    kinds = [s.kernel for s in program.steps]
    if kinds == ["CONV_2D"]:
        assert program.steps[0].ops == (0, 1)
        return True
    assert kinds == ["RESIZE_NEAREST_NEIGHBOR", "CONV_2D"], kinds
    return False


@st.composite
def pairs(draw):
    factors = draw(st.sampled_from([(2, 2), (3, 3), (2, 1), (1, 3), (3, 2)]))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    low = [-(-((kk - 1) * d + 1) // f) for kk, d, f in zip(k, dilation, factors)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(low[0], max(low[0], 4))),
             draw(st.integers(low[1], max(low[1], 4))),
             draw(st.sampled_from([1, 3, 8, 17])))  # 17 channels of a 3x3 window: read tap by tap, not gathered
    return dict(dtype=draw(st.sampled_from(["int16", "int8"])), shape=shape, factors=factors,
                c_out=draw(st.integers(1, 6)), k=k,
                stride=(draw(st.integers(1, 2)), draw(st.integers(1, 2))), dilation=dilation,
                padding=draw(st.sampled_from([SAME, VALID])), half_pixel=draw(st.booleans()),
                align_corners=draw(st.booleans()),
                bias=draw(st.sampled_from(["int64", "int32", None])), seed=draw(st.integers(0, 2**31)))


@settings(max_examples=30, deadline=None)
@given(pairs())
def test_upsample_conv_folded_bit_exact(case):
    """Folded exactly where TFLite's source table is floor(y / f) on both axes: always without
    align_corners, with it where the rounding happens to agree (a factor of 2, or a size of 1)."""
    model, data = build_upsample_conv(**case)
    program = compile_model(model)
    agree = all(np.array_equal(nearest_neighbor_indices(size, size * f, case["align_corners"], case["half_pixel"]),
                               np.arange(size * f) // f) for size, f in zip(case["shape"][1:3], case["factors"]))
    assert _folded(program) == agree and (agree or case["align_corners"])
    if agree:
        assert program.steps[0].params.upsample == case["factors"]
    assert_matches_tflm(model, [data])


EXPLICIT = [
    ("2x-3x3-same", dict(shape=(1, 4, 4, 8), factors=(2, 2)), "gather"),
    ("3x-3x3-valid-stride-2", dict(shape=(1, 3, 4, 3), factors=(3, 3), padding=VALID, stride=(2, 2)), "gather"),
    ("2x-1x1", dict(shape=(1, 3, 3, 5), factors=(2, 2), k=(1, 1), padding=VALID), "gather"),
    ("2x-taps", dict(shape=(1, 3, 3, 20), factors=(2, 2), c_out=3), "taps"),
    ("2x-dilated-half-pixel", dict(shape=(2, 3, 3, 4), factors=(2, 2), dilation=(2, 2), half_pixel=True), "gather"),
    ("int8-2x-3x3-same", dict(shape=(1, 4, 4, 8), factors=(2, 2), dtype="int8"), "gather"),
    ("int8-3x-1x1", dict(shape=(1, 3, 2, 5), factors=(3, 3), k=(1, 1), padding=VALID, dtype="int8"), "gather"),
    ("int8-2x-taps", dict(shape=(1, 3, 3, 20), factors=(2, 2), c_out=3, dtype="int8"), "taps"),
]


@pytest.mark.parametrize("name, case, way", EXPLICIT, ids=[e[0] for e in EXPLICIT])
def test_explicit_upsample_conv(name, case, way):
    model, data = build_upsample_conv(**case)
    program = compile_model(model)
    assert _folded(program) and conv_way(program.steps[0].params) == way
    (out,) = assert_matches_tflm(model, [data])
    assert out.dtype == np.dtype(case.get("dtype", "int16")) and len(np.unique(out)) > 3


def test_fold_keeps_the_upsampled_tensor_out_of_the_pool():
    """autoencoder_16x8's decoder layer: the 16x16x8 upsampled copy (4,096 bytes) never exists; the
    step holds about its input and output."""
    model, _ = build_upsample_conv(shape=(1, 8, 8, 8), factors=(2, 2), c_out=1)
    program = compile_model(model)
    assert _folded(program)
    assert program.plan.pool_bytes <= 8 * 8 * 8 * 2 + 16 * 16 * 1 * 2


@pytest.mark.parametrize("case", [dict(factors=(2, 2), second_reader=True), dict(factors=(3, 3), align_corners=True),
                                  dict(factors=(2, 2), up_scale=1.5)],
                         ids=["second-reader", "align-corners", "other-scale"])
def test_not_folded(case):
    """A RESIZE whose output something else reads (here the application) keeps its step; so does one
    whose align_corners table is no integer factor's (4 -> 12 rows: row 2 from source row 1, not 0), and
    one whose output is quantized unlike its input (it copies the values: the convolution reads them
    at the output's scale)."""
    model, data = build_upsample_conv(shape=(1, 4, 4, 3), **case)
    assert not _folded(compile_model(model))
    assert_matches_tflm(model, [data])


def _ceil_rows(expr, rows: int):
    """`expr` with each floor division by the row factor (the one over ky) replaced by a ceiling
    clamped to the last source row: the next source row for every virtual row between two."""
    if isinstance(expr, FloorDiv):
        if "ky" in expr.a.variables():
            return Min(CeilDiv(expr.a, expr.divisor), Const(rows - 1))
        return expr
    if isinstance(expr, Sum):
        return Sum(tuple((c, _ceil_rows(p, rows)) for c, p in expr.parts), expr.const)
    if isinstance(expr, (Min, Max)):
        return type(expr)(_ceil_rows(expr.a, rows), _ceil_rows(expr.b, rows))
    return expr


def test_wrong_source_row_is_a_mismatch(monkeypatch):
    model, data = build_upsample_conv(shape=(1, 4, 4, 8), factors=(2, 2), seed=3)
    mutation = changed(RAMLoad, offset=lambda s: _ceil_rows(s.offset, 4) if s.name == "win" else s.offset)
    program = compile_model(model, "tensor")
    (step,), (planned,) = program.steps, program.plan.steps
    kernel = describe(step.kernel, step.params, planned.segment_bytes)
    assert mutation(kernel) != kernel  # the mutation reaches the window's loads
    Interpreter(program).run([data])  # as described: TFLite's formula
    monkeypatch.setattr(streaming, "describe", _mutated_describe("conv2d_s16", mutation))
    monkeypatch.setattr(interpreter_module, "describe", _mutated_describe("conv2d_s16", mutation))
    with pytest.raises(MismatchError, match="TFLite's formula"):
        Interpreter(compile_model(model, "tensor")).run([data])
