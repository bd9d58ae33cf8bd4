"""Inverted bottlenecks fused as chains against the unfused layers and TFLite Micro: bit-exact,
hazard-free, the residual ADD of the block input folded into the chain."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.planner.test_chains import assert_chain_matches, chained_program
from tests.random_graphs import GraphBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model


class Block(GraphBuilder):
    """Builds lead conv -> depthwise -> 1x1 project [-> ADD], tracking the current shape and scale."""

    def conv(self, x, c_out, k, stride, depthwise=False):
        y, self.shape, self.scale, _ = super().conv(x, self.shape, c_out, k, stride, depthwise)
        return y


@st.composite
def blocks(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    lead = draw(st.sampled_from(["expand", "stem", "none"]))
    k = draw(st.sampled_from([3, 5, 7]))
    stride = draw(st.sampled_from([1, 2]))
    residual = draw(st.booleans()) and stride == 1 and lead != "stem"
    hw = draw(st.integers(k, 12))
    c_in = draw(st.integers(1, 6))
    block = Block(rng, hw, c_in)
    y = block.x
    if lead == "expand":
        y = block.conv(y, draw(st.integers(c_in, 4 * c_in + 2)), 1, 1)
    elif lead == "stem":
        y = block.conv(y, draw(st.integers(2, 8)), 3, draw(st.sampled_from([1, 2])))
    y = block.conv(y, block.shape[3], k, stride, depthwise=True)
    c_out = c_in if residual else draw(st.integers(1, 8))
    y = block.conv(y, c_out, 1, 1)
    if residual:
        out = block.b.tensor(block.shape, scale=block.scale * 1.5, zero_point=3)
        operands = [block.x, y] if draw(st.booleans()) else [y, block.x]
        block.b.op("ADD", operands, [out], fused_activation_function=0)
        y = out
    block.b.inputs, block.b.outputs = [block.x], [y]
    data = rng.integers(-128, 128, size=(1, hw, hw, c_in)).astype(np.int8)
    return block.b.build(), data, residual


@settings(max_examples=40, deadline=None)
@given(blocks())
def test_fused_block_is_bit_exact_and_hazard_free(case):
    model, data, residual = case
    program = chained_program(model)
    assert [s.kernel for s in program.steps] == ["LAYER_CHAIN"]
    assert (program.steps[0].params.add is not None) == residual
    ours, unfused = assert_chain_matches(model, data, program)
    np.testing.assert_array_equal(ours, Interpreter(unfused).run([data]).outputs[0])


def lead_depthwise_project(rng, hw: int, c_in: int, mid: int, lead_k: int, c_out: int) -> bytes:
    """lead conv (lead_k x lead_k to `mid` channels) -> 3x3 depthwise -> 1x1 project to `c_out`."""
    block = Block(rng, hw, c_in)
    y = block.conv(block.x, mid, lead_k, 1)
    y = block.conv(y, mid, 3, 1, depthwise=True)
    y = block.conv(y, c_out, 1, 1)
    block.b.inputs, block.b.outputs = [block.x], [y]
    return block.b.build()


@pytest.mark.parametrize("fuse", [True, False])
def test_no_fuse_keeps_every_layer(fuse):
    model = lead_depthwise_project(np.random.default_rng(3), 10, 4, mid=16, lead_k=1, c_out=4)
    program = compile_model(model, "vmcu", fuse=fuse)
    kinds = [s.kernel for s in program.steps]
    assert kinds == (["LAYER_CHAIN"] if fuse else ["CONV_2D", "DEPTHWISE_CONV_2D", "CONV_2D"])
    assert len(program.plan.fusion) == (1 if fuse else 0)


def test_block_without_lead_keeps_the_window_rows_above():
    """dw -> project -> ADD: the window's top rows come before the residual pixel, so the output
    may not start on the input (a regression: the residual alone was taken as the first read)."""
    rng = np.random.default_rng(0)
    block = Block(rng, 3, 1)
    y = block.conv(block.x, 1, 3, 1, depthwise=True)
    y = block.conv(y, 1, 1, 1)
    out = block.b.tensor(block.shape, scale=block.scale * 1.5, zero_point=3)
    block.b.op("ADD", [y, block.x], [out])
    block.b.inputs, block.b.outputs = [block.x], [out]
    model = block.b.build()
    program = chained_program(model)
    x, y_out = program.steps[0].inputs[0], program.steps[0].outputs[0]
    distance = (program.plan.offsets[x] - program.plan.offsets[y_out]) % program.plan.pool_bytes
    assert distance >= 3 + 1  # a row and a pixel of the window are still to be read
    data = rng.integers(-128, 128, (1, 3, 3, 1)).astype(np.int8)
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])


def test_stem_wider_than_a_gathered_window_fuses():
    """A 3x3 stem over 16 channels (144-byte windows) is read kernel row by kernel row."""
    rng = np.random.default_rng(11)
    model = lead_depthwise_project(rng, 8, 16, mid=8, lead_k=3, c_out=4)
    data = rng.integers(-128, 128, size=(1, 8, 8, 16)).astype(np.int8)
    program = chained_program(model)
    assert [s.kernel for s in program.steps] == ["LAYER_CHAIN"]
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])
