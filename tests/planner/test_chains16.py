"""Fused chains of 16x8 layers (int16 activations, int8 weights) against TFLite Micro: bit-exact and
hazard-free in the interpreter (it replays every int16 ring load and store), the layers' MACs, int16
rings; the DS-CNN fixture fused from its stem to its global average pool, and what a 16x8 chain does
not take (recomputation, streamed rows) refused or skipped cleanly."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from tests.ops.test_op_int16_heavy import int16_inputs
from tests.planner.test_chains import assert_chain_matches, chained_program
from tests.tflite_builder import ModelBuilder, random_weights
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.ir import RAMLoad, RegAlloc
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model

SAME, VALID = 0, 1
KWS16 = Path(__file__).resolve().parents[2] / "models" / "kws_dscnn_16x8.tflite"
LAYERS = [("conv", 3, 1), ("conv", 3, 2), ("conv", 1, 1), ("dw", 3, 1), ("dw", 3, 2), ("dw2", 3, 1)]


def _out(size: int, k: int, stride: int, padding: int) -> int:
    return -(-size // stride) if padding == SAME else (size - k) // stride + 1


class Chain16:
    """A 16x8 network built layer by layer: int16 tensors (zero point 0) between them, int8 symmetric
    per-channel weights, int64 biases (int32 ones for some convolutions, which TFLite Micro takes)."""

    def __init__(self, rng: np.random.Generator, shape: tuple[int, int, int, int]):
        self.rng, self.b, self.shape, self.scale = rng, ModelBuilder(), shape, float(rng.uniform(2e-4, 1e-3))
        self.input_shape = shape
        self.x = self.b.tensor(list(shape), "int16", scale=self.scale, zero_point=0)
        self.b.inputs = [self.x]

    def layer(self, kind: str, k: int, stride: int, c_out: int, padding: int = SAME, act: int = 0,
              bias: str = "int64") -> None:
        n, h, w, c = self.shape
        depthwise = kind.startswith("dw")
        c_out = c * (2 if kind == "dw2" else 1) if depthwise else c_out
        ws = self.rng.uniform(0.002, 0.03, size=c_out)
        taps = k * k * (1 if depthwise else c)
        out_scale = float(self.scale * ws.mean() * 60 * np.sqrt(taps))
        fshape = (1, k, k, c_out) if depthwise else (c_out, k, k, c)
        f = self.b.const(random_weights(self.rng, fshape), scale=ws, zero_point=0, axis=3 if depthwise else 0)
        bound = 1 << 18
        b = self.b.const(self.rng.integers(-bound, bound, size=c_out).astype(bias), scale=self.scale * ws,
                         zero_point=0)
        o_h, o_w = _out(h, k, stride, padding), _out(w, k, stride, padding)
        y = self.b.tensor([n, o_h, o_w, c_out], "int16", scale=out_scale, zero_point=0)
        options = dict(padding=padding, stride_h=stride, stride_w=stride, dilation_h_factor=1, dilation_w_factor=1,
                       fused_activation_function=act)
        if depthwise:
            options["depth_multiplier"] = c_out // c
        self.b.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [self.x, f, b], [y], **options)
        self.x, self.shape, self.scale = y, (n, o_h, o_w, c_out), out_scale

    def global_pool(self, act: int = 0) -> None:
        n, h, w, c = self.shape
        y = self.b.tensor([n, 1, 1, c], "int16", scale=self.scale, zero_point=0)
        self.b.op("AVERAGE_POOL_2D", [self.x], [y], padding=VALID, stride_h=1, stride_w=1, filter_height=h,
                  filter_width=w, fused_activation_function=act)
        self.x, self.shape = y, (n, 1, 1, c)

    def build(self) -> bytes:
        self.b.outputs = [self.x]
        return self.b.build()


@st.composite
def chains16(draw, most: int = 4):
    """A 16x8 model that is one chain: 2 to `most` layers (windows, strides, widths, paddings, fused
    activations, int32 or int64 biases of convolutions drawn), maybe ended by a global average pool."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    hw, c_in = draw(st.integers(3, 10)), draw(st.integers(1, 4))
    net = Chain16(rng, (1, hw, draw(st.integers(3, 10)), c_in))
    kinds = draw(st.lists(st.sampled_from(LAYERS), min_size=2, max_size=most))
    for kind, k, stride in kinds:
        stride = stride if min(net.shape[1:3]) > 2 else 1
        padding = draw(st.sampled_from([SAME, VALID])) if min(net.shape[1:3]) >= k + stride else SAME
        bias = "int64" if kind.startswith("dw") else draw(st.sampled_from(["int64", "int32"]))
        net.layer(kind, k, stride, draw(st.integers(1, 9)), padding, draw(st.sampled_from([0, 1, 3])), bias)
    if draw(st.booleans()):
        net.global_pool(draw(st.sampled_from([0, 1, 3])))
    return net.build(), int16_inputs(rng, net.input_shape), len(kinds)


@settings(max_examples=30, deadline=None)
@given(chains16())
def test_int16_chain_is_bit_exact_and_hazard_free(case):
    model, data, layers = case
    program = chained_program(model)
    (step,) = program.steps
    assert step.params.element == 2 and len(step.params.layers) == layers
    ours, _ = assert_chain_matches(model, data, program)
    assert ours.dtype == np.int16
    kernel = describe(step.kernel, step.params, program.plan.steps[0].segment_bytes)
    assert kernel.element == 2 and kernel.name == "layer_chain_s16"
    assert all(s.ctype == "int16_t" for s in _statements(kernel.body) if isinstance(s, RAMLoad))
    pixels = [s for s in _statements(kernel.body) if isinstance(s, RegAlloc) and s.name.startswith("px")]
    assert pixels and all(s.ctype == "int16_t" for s in pixels)
    # recomputation and streamed rows are int8 features: a 16x8 chain keeps its rings and its input
    assert not step.params.can_recompute() and not step.params.can_pull() and not step.params.can_push()
    assert np.array_equal(Interpreter(chained_program(model, recompute=True, pulls=True)).run([data]).outputs[0], ours)


def _statements(body):
    for stmt in body:
        yield stmt
        yield from _statements(getattr(stmt, "body", ()))


def test_the_16x8_ds_cnn_is_one_chain_from_its_stem_to_its_pool():
    """kws_dscnn_16x8: the stem, both depthwise/pointwise pairs and the global average pool are one
    step with two int16 rings of three rows (the depthwise windows), its pool at most half of the
    layers apart (12,000 B whole-tensor), the same MACs; the interpreter bit-exact with TFLite Micro."""
    program, apart = compile_model(KWS16), compile_model(KWS16, fuse=False)
    assert [s.kernel for s in program.steps] == ["LAYER_CHAIN", "FULLY_CONNECTED", "INT16_SOFTMAX"]
    chain = program.steps[0].params
    assert chain.element == 2 and chain.pool is not None and len(chain.layers) == 5
    assert [chain.ring_bytes(s) for s in chain.stages] == [3 * 5 * 24 * 2, 3 * 5 * 24 * 2, 0]
    assert program.plan.pool_bytes <= 6000 < apart.plan.pool_bytes
    assert program.plan.macs == apart.plan.macs
    data = np.random.default_rng(3).integers(-32768, 32768, size=(1, 49, 10, 1)).astype(np.int16)
    expected = run_tflm(KWS16.read_bytes(), [data], 1)[0][0]
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], expected)


def test_recomputation_and_streamed_rows_leave_a_16x8_chain_as_it_is():
    """Recomputation and pulled or pushed rows are int8 chains' features: asked for, the 16x8 DS-CNN
    keeps the same chain with its rings, its input whole in the pool (its rows pulled there before
    the chain), bit-exact."""
    plain = compile_model(KWS16)
    for program in (compile_model(KWS16, recompute=True), compile_model(KWS16, stream_inputs=[0]),
                    compile_model(KWS16, recompute=True, stream_inputs=[0], stream_outputs=[0])):
        chain = program.steps[0].params
        assert chain.recomputed is None and chain.pulls_input is None and chain.pushes_output is None
        assert chain.workspace_bytes == plain.steps[0].params.workspace_bytes
        assert program.plan.macs == plain.plan.macs
        data = np.random.default_rng(4).integers(-32768, 32768, size=(1, 49, 10, 1)).astype(np.int16)
        np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0],
                                      Interpreter(plain).run([data]).outputs[0])
