"""16x8 FULLY_CONNECTED, CONV_2D (pointwise and windowed) and DEPTHWISE_CONV_2D against TFLite Micro.

int16 activations with zero point 0, symmetric int8 weights (per channel or per tensor), an int64
bias, an int32 one (FULLY_CONNECTED, CONV_2D) or none; full-scale int16 inputs (the extremes
included), strides, dilations, both paddings, depth multipliers, fused activations. The kernels
run through their descriptions in the interpreter (the harness checks them against TFLite's
formula, then TFLite Micro). Also: what TFLite Micro's Prepare refuses or misreads is refused,
and a wrong int16 description fails in Python.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.kernels.test_mutations import _mutated_describe, _run, changed, dropped
from tests.op_harness import assert_matches_tflm
from tests.tflite_builder import ModelBuilder, pack, random_weights, schema, unpack
from vmcu_reference import interpreter as interpreter_module
from vmcu_reference.ops.op_fully_connected import FullyConnected
from vmcu_tflite.errors import EXIT_OUTPUTS_DIFFER, ModelError
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.index import Var, substitute
from vmcu_tflite.kernels.ir import DotLanes, InitBias, RAMLoad, RAMStore, Requantize
from vmcu_tflite.kernels.requant import RequantForm
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.planner import streaming

SAME, VALID = 0, 1


def int16_inputs(rng: np.random.Generator, shape) -> np.ndarray:
    """Full-scale int16 values, with the extremes planted (the widest products and sums)."""
    data = rng.integers(-32768, 32768, size=shape).astype(np.int16)
    flat = data.reshape(-1)
    flat[rng.integers(0, flat.size, size=max(1, flat.size // 8))] = -32768
    flat[rng.integers(0, flat.size, size=max(1, flat.size // 8))] = 32767
    return data


def _bias(b: ModelBuilder, rng, kind: str | None, n: int, scales, bits: int = 22) -> list[int]:
    if kind is None:
        return []
    bound = 1 << (bits if kind == "int64" else min(bits, 30))
    values = rng.integers(-bound, bound, size=n)
    return [b.const(values.astype(kind), scale=scales, zero_point=0)]


def build_fc(rows=2, depth=20, units=6, bias="int64", per_channel=False, act=0, seed=1, gain=3000.0, bias_bits=22,
             bias_scale=1.0):
    """`bias_bits`: the bias's magnitude (36: an int64 bias beyond int32, its C table int64_t);
    `bias_scale`: the bias's scale over input scale x filter scale."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    in_scale = float(rng.uniform(1e-4, 1e-3))
    ws = rng.uniform(0.001, 0.05, size=units if per_channel else 1)
    out_scale = float(in_scale * ws.mean() * max(gain * np.sqrt(depth), 2.0 ** bias_bits / 8000))
    x = b.tensor([rows, depth], "int16", scale=in_scale, zero_point=0)
    f = b.const(random_weights(rng, (units, depth)), scale=ws, zero_point=0, axis=0)
    inputs = [x, f] + _bias(b, rng, bias, units, (in_scale * ws if per_channel else in_scale * ws[0]) * bias_scale,
                            bias_bits)
    y = b.tensor([rows, units], "int16", scale=out_scale, zero_point=0)
    b.op("FULLY_CONNECTED", inputs, [y], fused_activation_function=act)
    b.inputs, b.outputs = [x], [y]
    return b.build(), int16_inputs(rng, (rows, depth))


def _out_size(size: int, k: int, stride: int, dilation: int, padding: int) -> int:
    return -(-size // stride) if padding == SAME else (size - (k - 1) * dilation - 1) // stride + 1


def build_conv(kind="CONV_2D", shape=(1, 5, 5, 3), c_out=4, k=(1, 1), stride=(1, 1), dilation=(1, 1), padding=VALID,
               bias="int64", act=0, mult=1, seed=1, gain=2000.0):
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    n, h, w, c = shape
    in_scale = float(rng.uniform(1e-4, 1e-3))
    depthwise = kind == "DEPTHWISE_CONV_2D"
    c_out = c * mult if depthwise else c_out
    fshape = (1, k[0], k[1], c_out) if depthwise else (c_out, k[0], k[1], c)
    ws = rng.uniform(0.001, 0.05, size=c_out)
    out_scale = float(in_scale * ws.mean() * gain * np.sqrt(k[0] * k[1] * (1 if depthwise else c)))
    x = b.tensor(list(shape), "int16", scale=in_scale, zero_point=0)
    f = b.const(random_weights(rng, fshape), scale=ws, zero_point=0, axis=3 if depthwise else 0)
    inputs = [x, f] + _bias(b, rng, bias, c_out, in_scale * ws)
    o_h, o_w = (_out_size(s, kk, st_, d, padding) for s, kk, st_, d in zip((h, w), k, stride, dilation))
    y = b.tensor([n, o_h, o_w, c_out], "int16", scale=out_scale, zero_point=0)
    options = dict(padding=padding, stride_h=stride[0], stride_w=stride[1], dilation_h_factor=dilation[0],
                   dilation_w_factor=dilation[1], fused_activation_function=act)
    if depthwise:
        options["depth_multiplier"] = mult
    b.op(kind, inputs, [y], **options)
    b.inputs, b.outputs = [x], [y]
    return b.build(), int16_inputs(rng, shape)


def build_stack(seed: int = 5, channels: int = 6) -> bytes:
    """A 16x8 network of the four heavy kinds, int16 tensors between them: conv 3x3 (stride 2, SAME),
    depthwise 3x3, pointwise conv, fully connected over the flattened map; int64 biases but the
    pointwise conv's (int32). Its steps stream into each other in the vMCU plan."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    scale = 1e-3

    def layer(kind, x, shape_in, shape_out, fshape, bias, act, **options):
        nonlocal scale
        c_out = shape_out[-1]
        ws = rng.uniform(0.002, 0.03, size=c_out if kind != "FULLY_CONNECTED" else 1)
        depth = int(np.prod(fshape[1:])) if kind != "DEPTHWISE_CONV_2D" else int(np.prod(fshape[1:3]))
        out_scale = float(scale * ws.mean() * 60 * np.sqrt(depth))
        f = b.const(random_weights(rng, fshape), scale=ws, zero_point=0, axis=3 if kind == "DEPTHWISE_CONV_2D" else 0)
        y = b.tensor(shape_out, "int16", scale=out_scale, zero_point=0)
        b.op(kind, [x, f] + _bias(b, rng, bias, c_out, scale * ws, 18), [y], fused_activation_function=act, **options)
        scale = out_scale
        return y

    x = b.tensor([1, 9, 9, 3], "int16", scale=scale, zero_point=0)
    conv = dict(padding=SAME, stride_h=2, stride_w=2, dilation_h_factor=1, dilation_w_factor=1)
    y = layer("CONV_2D", x, [1, 9, 9, 3], [1, 5, 5, channels], (channels, 3, 3, 3), "int64", 1, **conv)
    dw = dict(padding=SAME, stride_h=1, stride_w=1, dilation_h_factor=1, dilation_w_factor=1, depth_multiplier=1)
    y = layer("DEPTHWISE_CONV_2D", y, None, [1, 5, 5, channels], (1, 3, 3, channels), "int64", 3, **dw)
    pw = dict(padding=VALID, stride_h=1, stride_w=1, dilation_h_factor=1, dilation_w_factor=1)
    y = layer("CONV_2D", y, None, [1, 5, 5, 2 * channels], (2 * channels, 1, 1, channels), "int32", 0, **pw)
    y = layer("FULLY_CONNECTED", y, None, [1, 10], (10, 25 * 2 * channels), "int64", 0)
    b.inputs, b.outputs = [x], [y]
    return b.build()


def build_pointwise_then_gather(seed: int = 5, c: int = 6, c_out: int = 5) -> bytes:
    """A 16x8 pointwise conv then a 3x3 SAME conv over its output: in the vMCU plan that output crosses
    the end of the pool, so the second conv's gathered window copies runs that wrap."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    scale = 1e-3
    x = b.tensor([1, 6, 6, c], "int16", scale=scale, zero_point=0)

    def layer(x, c_out, k):
        nonlocal scale
        ws = rng.uniform(0.002, 0.03, size=c_out)
        out_scale = float(scale * ws.mean() * 60 * np.sqrt(k * k * c))
        f = b.const(random_weights(rng, (c_out, k, k, c)), scale=ws, zero_point=0, axis=0)
        y = b.tensor([1, 6, 6, c_out], "int16", scale=out_scale, zero_point=0)
        b.op("CONV_2D", [x, f] + _bias(b, rng, "int64", c_out, scale * ws, 18), [y], padding=SAME, stride_h=1,
             stride_w=1, dilation_h_factor=1, dilation_w_factor=1, fused_activation_function=0)
        scale = out_scale
        return y

    b.inputs, b.outputs = [x], [layer(layer(x, c, 1), c_out, 3)]
    return b.build()


def test_gathered_window_across_the_end_of_the_pool():
    from vmcu_tflite.kernels.window import conv_way
    model = build_pointwise_then_gather()
    program = compile_model(model)
    plan, graph = program.plan, program.graph
    middle = graph.storage_of(program.steps[0].outputs[0])
    assert plan.offsets[middle] + graph.tensors[middle].num_bytes > plan.pool_bytes
    assert conv_way(program.steps[1].params) == "gather"
    (out,) = assert_matches_tflm(model, [int16_inputs(np.random.default_rng(9), (1, 6, 6, 6))])
    assert len(np.unique(out)) > 3


@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
def test_stack_16x8(planner):
    """The layers one after the other, each reading the int16 tensor the one before wrote (streamed
    over it in the vMCU plan)."""
    model = build_stack()
    rng = np.random.default_rng(1)
    data = int16_inputs(rng, (1, 9, 9, 3))
    program = compile_model(model, planner)
    assert [s.kernel for s in program.steps] == ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D", "FULLY_CONNECTED"]
    if planner == "vmcu":
        assert any(s.streamed_inputs for s in program.plan.steps)
    ours = interpreter_module.Interpreter(program).run([data]).outputs[0]
    assert np.array_equal(ours, assert_matches_tflm(model, [data])[0])
    assert len(np.unique(ours)) > 3


ACTIVATIONS = st.sampled_from([0, 1, 2, 3])  # none, relu, relu_n1_to_1, relu6


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 4), depth=st.integers(1, 300), units=st.integers(1, 12), bias=st.sampled_from(
    ["int64", "int32", None]), per_channel=st.booleans(), act=ACTIVATIONS, seed=st.integers(0, 2**31),
    gain=st.sampled_from([30.0, 3000.0]))
def test_fully_connected_16x8(rows, depth, units, bias, per_channel, act, seed, gain):
    model, data = build_fc(rows, depth, units, bias, per_channel, act, seed, gain)
    assert_matches_tflm(model, [data])


@st.composite
def windows(draw, kind):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(st.sampled_from([SAME, VALID]))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    low = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(low[0], 7)), draw(st.integers(low[1], 7)),
             draw(st.integers(1, 9)))
    bias = draw(st.sampled_from(["int64", None] if kind == "DEPTHWISE_CONV_2D" else ["int64", "int32", None]))
    return dict(kind=kind, shape=shape, c_out=draw(st.integers(1, 9)), k=k, stride=stride, dilation=dilation,
                padding=padding, bias=bias, act=draw(ACTIVATIONS), mult=draw(st.integers(1, 3)),
                seed=draw(st.integers(0, 2**31)), gain=draw(st.sampled_from([20.0, 2000.0])))


@settings(max_examples=25, deadline=None)
@given(windows("CONV_2D"))
def test_conv2d_16x8(case):
    model, data = build_conv(**case)
    assert_matches_tflm(model, [data])


@settings(max_examples=25, deadline=None)
@given(windows("DEPTHWISE_CONV_2D"))
def test_depthwise_conv2d_16x8(case):
    model, data = build_conv(**case)
    assert_matches_tflm(model, [data])


EXPLICIT = [
    ("fc-int64", lambda: build_fc(3, 40, 16, "int64", seed=2)),
    ("fc-int32", lambda: build_fc(3, 40, 16, "int32", per_channel=True, seed=2)),
    ("fc-no-bias", lambda: build_fc(3, 40, 16, None, seed=2)),  # TFLite Micro's int64 kernel: seed 2 shows it
    ("fc-int64-beyond-int32", lambda: build_fc(2, 24, 8, "int64", per_channel=True, seed=4, bias_bits=36)),
    ("pointwise", lambda: build_conv(shape=(2, 3, 4, 8), c_out=6)),
    ("conv-3x3-same-stride-2", lambda: build_conv(shape=(1, 7, 6, 5), c_out=7, k=(3, 3), stride=(2, 2), padding=SAME)),
    ("conv-dilated-taps", lambda: build_conv(shape=(1, 7, 7, 3), k=(3, 2), dilation=(2, 2), bias="int32")),
    ("conv-no-bias", lambda: build_conv(shape=(1, 6, 6, 16), c_out=8, k=(3, 3), bias=None)),
    # a stem: one input channel, a tall window gathered (int32 bias: the sums wrap as TFLite Micro's), odd c_out
    ("conv-stem-gather", lambda: build_conv(shape=(1, 13, 9, 1), c_out=9, k=(5, 3), stride=(2, 2), padding=SAME,
                                            bias="int32", seed=3)),
    ("conv-rows", lambda: build_conv(shape=(1, 6, 5, 20), c_out=5, k=(3, 3), padding=SAME)),  # window too big to gather
    ("conv-taps", lambda: build_conv(shape=(1, 7, 7, 17), c_out=3, k=(3, 3), dilation=(1, 2), bias="int32")),
    ("depthwise-3x3", lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 6, 6, 16), k=(3, 3), act=1)),
    ("depthwise-multiplier-2", lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 7, 7, 3), k=(3, 2),
                                                  dilation=(2, 2), mult=2)),
]


@pytest.mark.parametrize("name, make", EXPLICIT, ids=[e[0] for e in EXPLICIT])
def test_explicit_16x8(name, make):
    model, data = make()
    (out,) = assert_matches_tflm(model, [data])
    assert out.dtype == np.int16 and len(np.unique(out)) > 3


WAYS = {"conv-3x3-same-stride-2": "gather", "conv-dilated-taps": "gather", "conv-no-bias": "gather",
        "conv-stem-gather": "gather", "conv-rows": "rows", "conv-taps": "taps"}


def test_conv_ways_are_covered():
    """The explicit cases reach each way a 16x8 CONV_2D reads its window (a gathered int16 window under
    the size limit, in place above it): the cases above test every one of them."""
    from vmcu_tflite.kernels.window import conv_way
    for name, make in EXPLICIT:
        if name in WAYS:
            (step,) = compile_model(make()[0]).steps
            assert conv_way(step.params) == WAYS[name], name


def test_plans_are_int16_kernels():
    """Every 16x8 layer runs through its int16 description (int64 accumulators for an int64 bias),
    never in place, a layer alone never fused (16x8 chains: tests/planner/test_chains16.py), with segments
    of whole elements."""
    for make in (lambda: build_fc(3, 40, 16), lambda: build_conv(shape=(1, 6, 6, 16), c_out=8, k=(3, 3)),
                 lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 6, 6, 16), k=(3, 3))):
        program = compile_model(make()[0])
        (step,), (planned,) = program.steps, program.plan.steps
        assert planned.segment_bytes % 2 == 0 and not planned.in_place
        kernel = describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows)
        assert kernel.element == 2 and kernel.name.endswith("_s16")
        loads = [s for s in _statements(kernel.body) if isinstance(s, RAMLoad)]
        assert loads and all(s.ctype == "int16_t" for s in loads)
        assert all(s.form.wide for s in _statements(kernel.body) if isinstance(s, Requantize))


def _statements(body):
    for stmt in body:
        yield stmt
        yield from _statements(getattr(stmt, "body", ()))


@pytest.mark.parametrize("bias", ["int64", "int32"])
def test_fully_connected_bias_scale_off_the_product_is_refused(bias):
    """A per-tensor filter: TFLite Micro's Prepare (GetQuantizedConvolutionMultipler) wants the bias
    scale within 2 % of an output step of input scale x filter scale, for int16 as for int8."""
    model, x = build_fc(bias=bias, bias_scale=1000.0)  # 7 % of an output step off
    with pytest.raises(ModelError, match="FULLY_CONNECTED at index 0: bias scale differs from input scale x filter"):
        compile_model(model)
    from vmcu_tflite.oracle import OracleError, run_tflm
    with pytest.raises(OracleError, match="scale_diff"):
        run_tflm(model, [x], 1)
    assert_matches_tflm(build_fc(bias=bias, bias_scale=1.001)[0], [x])


def test_depthwise_int32_bias_is_refused():
    """TFLite Micro's int16 depthwise kernel reads its bias as int64 whatever its type."""
    model, _ = build_conv("DEPTHWISE_CONV_2D", shape=(1, 5, 5, 3), k=(3, 3), bias="int32")
    with pytest.raises(ModelError, match="DEPTHWISE_CONV_2D at index 0: the bias of a 16x8 layer .* must be int64"):
        compile_model(model)


@pytest.mark.parametrize("kind", ["FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D"])
def test_int16_zero_point_is_refused(kind):
    b = ModelBuilder()
    rng = np.random.default_rng(0)
    if kind == "FULLY_CONNECTED":
        x, shape_out, f = b.tensor([1, 4], "int16", scale=0.001, zero_point=3), [1, 2], random_weights(rng, (2, 4))
    else:
        x, shape_out = b.tensor([1, 2, 2, 2], "int16", scale=0.001, zero_point=3), [1, 2, 2, 2]
        f = random_weights(rng, (2, 1, 1, 2) if kind == "CONV_2D" else (1, 1, 1, 2))
    w = b.const(f, scale=0.01, zero_point=0)
    y = b.tensor(shape_out, "int16", scale=0.01, zero_point=0)
    options = {} if kind == "FULLY_CONNECTED" else dict(padding=VALID, stride_h=1, stride_w=1)
    if kind == "DEPTHWISE_CONV_2D":
        options["depth_multiplier"] = 1
    b.op(kind, [x, w, b.const(np.zeros(2, np.int64), scale=1e-5, zero_point=0)], [y], **options)
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(ModelError, match="the int16 input's zero point must be 0"):
        compile_model(b.build())


def test_wide_form_is_not_the_32_bit_one():
    """The 64-bit requantization rounds the multiplier to 16 bits: on full-scale inputs some values
    differ from the 32-bit form's, so a description that took the other form would fail."""
    model, _ = build_fc(8, 40, 16, "int64", seed=2)
    program = compile_model(model)
    interpreter = interpreter_module.Interpreter(program)
    narrow = FullyConnected(replace(program.steps[0].params, wide=False))
    rng = np.random.default_rng(0)
    differ = 0
    for _ in range(4):
        data = int16_inputs(rng, (8, 40))
        differ += int(np.sum(narrow.run(data) != interpreter.run([data]).outputs[0]))
    assert differ > 0


# --- a wrong int16 description fails in Python ------------------------------------------------------

def _half_element(kernel):
    """Every int16 load one byte later and one element shorter (inside the tensor): its elements
    straddle two values."""
    def offset(s):
        return s.offset + 1 if s.ctype == "int16_t" else s.offset

    def length(s):
        return s.length - 2 if s.ctype == "int16_t" else s.length
    return changed(RAMLoad, offset=offset, length=length)(kernel)


def _int32_accumulators(kernel):
    """int64 accumulators declared int32 (with the 64-bit requantization kept): full-scale sums wrap."""
    from vmcu_tflite.kernels.ir import RegAlloc
    return changed(RegAlloc, ctype=lambda s: "int32_t" if s.ctype == "int64_t" else s.ctype)(kernel)


def _narrow_requantization(kernel):
    return changed(Requantize, form=lambda s: RequantForm(bias=s.form.bias))(kernel)


def _store_one_element_short(kernel):
    return changed(RAMStore, length=lambda s: s.length - 2)(kernel)


def _next_tap(kernel):
    return changed(DotLanes, w_index=lambda s: substitute(s.w_index, "kx", Var("kx") + 1))(kernel)


def _padding_at_one(kernel):
    """A gathered int16 window whose padding holds 1, not the zero point 0: SAME borders go wrong."""
    from vmcu_tflite.kernels.ir import RegAlloc
    return changed(RegAlloc, fill=lambda s: "1" if s.fill == "0" and s.ctype == "int16_t" else s.fill)(kernel)


def _gather_one_tap_late(kernel):
    """Each gathered run one element further into the window."""
    return changed(RAMLoad, into_index=lambda s: s.into_index + 1 if s.into is not None else s.into_index)(kernel)


MUTANTS = [
    ("fc-load-half-an-element-late", "fc", "fully_connected_s16", _half_element),
    ("fc-accumulators-int32", "fc", "fully_connected_s16", _int32_accumulators),
    ("fc-32-bit-requantization", "fc", "fully_connected_s16", _narrow_requantization),
    ("fc-missing-init-bias", "fc", "fully_connected_s16", dropped(InitBias)),
    ("pointwise-store-one-element-short", "pointwise", "pointwise_s16", _store_one_element_short),
    ("conv-load-half-an-element-late", "conv", "conv2d_s16", _half_element),
    ("conv-gather-padding-not-zero", "conv", "conv2d_s16", _padding_at_one),
    ("conv-gather-one-tap-late", "conv", "conv2d_s16", _gather_one_tap_late),
    ("depthwise-tap-index-off-by-one", "depthwise", "depthwise_s16", _next_tap),
    ("depthwise-load-half-an-element-late", "depthwise", "depthwise_s16", _half_element),
]
MUTANT_MODELS = {
    "fc": lambda: build_fc(3, 300, 16, "int64", seed=3, gain=30.0, bias_bits=34),
    "pointwise": lambda: build_conv(shape=(2, 3, 4, 8), c_out=6),
    "conv": lambda: build_conv(shape=(1, 6, 6, 16), c_out=8, k=(3, 3), padding=SAME),
    "depthwise": lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 6, 6, 16), k=(3, 3), padding=SAME),
}


@pytest.mark.parametrize("case_id, model, name, mutation", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_int16_value_mutant_is_a_mismatch(case_id, model, name, mutation, tmp_path, monkeypatch):
    path = tmp_path / f"{model}.tflite"
    path.write_bytes(MUTANT_MODELS[model]()[0])
    baseline, err = _run(path, "--no-fuse")
    assert baseline == 0, err
    monkeypatch.setattr(streaming, "describe", _mutated_describe(name, mutation))
    monkeypatch.setattr(interpreter_module, "describe", _mutated_describe(name, mutation))
    code, err = _run(path, "--no-fuse")
    assert code == EXIT_OUTPUTS_DIFFER, f"{case_id}: exit {code}, stderr: {err}"
    assert "error: step 0 (" in err and ("TFLite's formula" in err or "wrong kernel description" in err), err


def test_declared_bias_type_must_match():
    """The converter's quantized_bias_type option names the bias type; TFLite Micro's Prepare holds the
    bias to it."""
    model, _ = build_fc(2, 8, 4, "int32")
    m = unpack(model)
    m.subgraphs[0].operators[0].builtinOptions.quantizedBiasType = schema.TensorType.INT64
    with pytest.raises(ModelError, match="the bias is int32, its options' quantized_bias_type says int64"):
        compile_model(pack(m))


def test_16x8_layers_are_never_fused():
    """The converter-made fixture's conv, depthwise and pointwise conv would be one chain in int8; in
    16x8 each stays a step of its own."""
    from pathlib import Path

    program = compile_model(Path(__file__).resolve().parents[2] / "models" / "heavy_16x8.tflite", fuse=True)
    assert [s.kernel for s in program.steps] == ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D", "FULLY_CONNECTED"]
    assert all(getattr(s.params, "element", 1) == 2 for s in program.steps)


def test_16x8_tensors_cross_the_end_of_the_pool():
    """Between 16x8 heavy layers an int16 tensor may wrap (their kernels copy what does): the fixture's
    vMCU pool is twice its int8 twin's 308 bytes, with the first conv's output across the end."""
    from pathlib import Path

    program = compile_model(Path(__file__).resolve().parents[2] / "models" / "heavy_16x8.tflite")
    plan, graph = program.plan, program.graph
    assert plan.pool_bytes == 616
    conv_out = graph.storage_of(program.steps[0].outputs[0])
    assert plan.offsets[conv_out] + graph.tensors[conv_out].num_bytes > plan.pool_bytes
    for port in (*graph.inputs, *graph.outputs):  # the application's stay in one piece
        t = graph.storage_of(port.tensor)
        assert plan.offsets[t] + graph.tensors[t].num_bytes <= plan.pool_bytes
