"""vMCU plans: hazard-free and bit-exact, optimal where eq. 1 says so, deterministic."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.models_under_test import conv_chain
from tests.random_graphs import random_graphs
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.errors import HazardError
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.access import min_distance


def assert_runs_bit_exact(model: bytes, data: np.ndarray, planner: str = "vmcu") -> None:
    program = compile_model(model, planner)
    ours = Interpreter(program).run([data]).outputs
    theirs, _ = run_tflm(model, [data], len(ours))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(random_graphs())
def test_random_graphs_plan_hazard_free_and_bit_exact(case):
    model, data = case
    assert_runs_bit_exact(model, data)
    program = compile_model(model, "vmcu")
    vmcu, tensor = program.plan, compile_model(model, "tensor").plan
    assert vmcu.pool_bytes <= tensor.pool_bytes
    for port in program.graph.inputs + program.graph.outputs:  # plain pointers for the application
        t = program.graph.storage_of(port.tensor)
        assert vmcu.offsets[t] + vmcu.buffers[t].size <= vmcu.pool_bytes


def fc_model(m: int, k: int, n: int, seed: int) -> tuple[bytes, np.ndarray]:
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    x = b.tensor((m, k), scale=0.05, zero_point=3)
    w = b.const(random_weights(rng, (n, k)), scale=0.01, zero_point=0)
    bias = b.const(random_bias(rng, n), scale=0.0005, zero_point=0)
    y = b.tensor((m, n), scale=0.2 * np.sqrt(k), zero_point=-1)
    b.op("FULLY_CONNECTED", [x, w, bias], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build(), rng.integers(-128, 128, (m, k)).astype(np.int8)


def pointwise_model(hw: int, c_in: int, c_out: int, seed: int) -> tuple[bytes, np.ndarray]:
    model = conv_chain(channels=(c_in, c_out), hw=hw, seed=seed)
    return model, np.random.default_rng(seed).integers(-128, 128, (1, hw, hw, c_in)).astype(np.int8)


def _placed(program, x: int, y: int, distance: int):
    """The plan with x `distance` bytes after y (before it if negative), in the smallest pool that holds both."""
    graph, plan = program.graph, program.plan
    size_x, size_y = graph.tensors[x].num_bytes, graph.tensors[y].num_bytes
    at_x, at_y = max(distance, 0), max(-distance, 0)
    pool = max(at_x + size_x, at_y + size_y)
    return replace(program, plan=replace(plan, pool_bytes=pool, offsets={x: at_x, y: at_y}))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["fc", "pointwise"]), st.integers(1, 6), st.integers(1, 24), st.integers(1, 24),
       st.integers(0, 1000))
def test_single_layer_reaches_the_eq1_optimum_exactly(kind, rows, k, n, seed):
    """The distance solved from the kernel's description works, and one byte closer is a hazard
    the interpreter catches when it runs the same description's loads and stores."""
    model, data = fc_model(rows, k, n, seed) if kind == "fc" else pointwise_model(rows + 1, k, n, seed)
    program = compile_model(model, "vmcu")
    step, planned = program.steps[0], program.plan.steps[0]
    x, y = step.inputs[0], step.outputs[0]
    expected = run_tflm(model, [data], 1)[0][0]
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], expected)
    assert planned.streamed_inputs == (x,)
    distance = min_distance(describe(step.kernel, step.params, planned.segment_bytes, tile_rows=planned.tile_rows))
    if distance is None:
        return  # one iteration: nothing is stored before everything is read
    np.testing.assert_array_equal(Interpreter(_placed(program, x, y, distance)).run([data]).outputs[0], expected)
    with pytest.raises(HazardError):
        Interpreter(_placed(program, x, y, distance - 1)).run([data])


def test_same_model_same_plan():
    model = conv_chain(channels=(3, 8, 16, 4), hw=9)
    first = compile_model(model).plan.dumps(compile_model(model).graph)
    for _ in range(2):
        again = compile_model(model)
        assert again.plan.dumps(again.graph) == first


@settings(max_examples=30, deadline=None)
@given(channels=st.lists(st.integers(1, 9), min_size=2, max_size=4), axis=st.sampled_from([1, 3]),
       hw=st.integers(1, 6), seed=st.integers(0, 1000))
def test_concatenation_streams_over_its_inputs(channels, axis, hw, seed):
    rng = np.random.default_rng(seed)
    b = ModelBuilder()
    shapes = [(1, hw * c, hw, 3) if axis == 1 else (1, hw, hw, c) for c in channels]
    xs = [b.tensor(s, scale=0.1, zero_point=4) for s in shapes]
    out_shape = list(shapes[0])
    out_shape[axis] = sum(s[axis] for s in shapes)
    y = b.tensor(tuple(out_shape), scale=0.1, zero_point=4)
    b.op("CONCATENATION", xs, [y], axis=axis)
    b.inputs, b.outputs = xs, [y]
    model = b.build()
    inputs = [rng.integers(-128, 128, s).astype(np.int8) for s in shapes]
    program = compile_model(model, "vmcu")
    assert program.plan.steps[0].mode == "segment"
    ours = Interpreter(program).run(inputs).outputs[0]
    np.testing.assert_array_equal(ours, run_tflm(model, inputs, 1)[0][0])
    assert program.plan.pool_bytes < sum(int(np.prod(s)) for s in shapes) * 2


def test_a_whole_tensor_1x1_layer_takes_its_widest_segment():
    """A 1x1 layer whose input lives on (the residual's) streams nothing: its output never lands on
    its input, so its segment only sets the GEMM's loops, and it takes the widest divisor of its 48
    output channels up to 64 bytes, not min(C_in, C_out) = 16; the layer after it, which streams,
    keeps its own. Bit-exact with TFLite Micro."""
    rng = np.random.default_rng(5)
    b = ModelBuilder()
    x = b.tensor((1, 6, 6, 16), scale=0.05, zero_point=-3)
    b.inputs = [x]
    y = x
    for c_in, c_out in ((16, 48), (48, 16)):
        w = b.const(random_weights(rng, (c_out, 1, 1, c_in)), scale=[0.01] * c_out, zero_point=0, axis=0)
        bias = b.const(random_bias(rng, c_out, bound=2000), scale=[0.0005] * c_out, zero_point=0)
        z = b.tensor((1, 6, 6, c_out), scale=0.1, zero_point=2)
        b.op("CONV_2D", [y, w, bias], [z], padding=1, stride_h=1, stride_w=1)
        y = z
    out = b.tensor((1, 6, 6, 16), scale=0.1, zero_point=1)
    b.op("ADD", [x, y], [out], fused_activation_function=0)
    b.outputs = [out]
    model = b.build()
    program = compile_model(model, "vmcu", fuse=False)
    first, second = program.plan.steps[:2]
    assert (first.mode, first.segment_bytes) == ("whole-tensor", 48)
    assert (second.mode, second.segment_bytes) == ("segment", 16)
    data = rng.integers(-128, 128, (1, 6, 6, 16)).astype(np.int8)
    ours = Interpreter(program).run([data]).outputs[0]
    np.testing.assert_array_equal(ours, run_tflm(model, [data], 1)[0][0])


@settings(max_examples=20, deadline=None)
@given(random_graphs(), st.sampled_from(["dsp", "helium"]))
def test_random_graphs_streamed_are_hazard_free_bit_exact_and_never_larger(case, tuning):
    """The input pulled and the output pushed row by row: the same values as whole, in at most the
    pool of the plan without streaming, at the same MACs; a ring, where a chain pulls the input,
    never crosses the end of the pool. Both tunings: their GEMM tiles widen distances the
    placement must keep."""
    model, data = case
    whole = compile_model(model, "vmcu", tuning=tuning)
    streamed = compile_model(model, "vmcu", stream_inputs=[0], stream_outputs=[0], tuning=tuning)
    ours = Interpreter(streamed).run([data]).outputs
    for a, b in zip(ours, Interpreter(whole).run([data]).outputs):
        np.testing.assert_array_equal(a, b)
    assert streamed.plan.pool_bytes <= whole.plan.pool_bytes and streamed.plan.macs == whole.plan.macs
    for port in streamed.plan.streamed_io.inputs:
        if port.in_ring:
            ring = streamed.plan.buffers[-1 - port.step]
            assert streamed.plan.offsets[ring.tensor] + ring.size <= streamed.plan.pool_bytes
