"""Fused chains of convolution layers against the layers apart and TFLite Micro: bit-exact,
hazard-free (the interpreter replays every ring load and store), the same MACs, fewer bytes."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tests.models_under_test import FIXTURES
from tests.random_graphs import GraphBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.chain import LayerChainParams
from vmcu_tflite.fusion import chain_runs, chain_step
from vmcu_tflite.kernels.tuning import tuned
from vmcu_tflite.kernels.widened_weights import widen_weights
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.passes import simplify
from vmcu_tflite.pipeline import Program, compile_model, streamed_ports
from vmcu_tflite.planner.vmcu import plan_vmcu
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps

LAYERS = [("conv", 3, 1), ("conv", 3, 2), ("conv", 5, 2), ("conv", 1, 1), ("dw", 3, 1), ("dw", 3, 2), ("dw", 5, 1),
          ("dw2", 3, 2)]  # dw2: depth multiplier 2


@st.composite
def chains(draw, most: int = 5):
    """A model that is one chain: 2 to `most` layers with windows, strides, widths and padding drawn,
    maybe read from an NCHW input through a TRANSPOSE (a PyTorch export) and maybe ended by a
    global average pool."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    hw, c_in = draw(st.integers(3, 11)), draw(st.integers(1, 5))
    g = GraphBuilder(rng, hw, c_in)
    shape, transposed = (1, hw, hw, c_in), draw(st.booleans())
    if transposed:
        nchw = g.b.tensor((1, c_in, hw, hw), scale=g.scale, zero_point=g.zp)
        g.b.op("TRANSPOSE", [nchw, g.b.const(np.array([0, 2, 3, 1], dtype=np.int32))], [g.x])
        g.b.inputs, shape = [nchw], (1, c_in, hw, hw)
    kinds = draw(st.lists(st.sampled_from(LAYERS), min_size=2, max_size=most))
    for kind, k, stride in kinds:
        stride = stride if g.shape[1] > 2 else 1
        c_out = {"dw": g.shape[3], "dw2": 2 * g.shape[3]}.get(kind) or draw(st.integers(1, 9))
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, c_out, k, stride, depthwise=kind.startswith("dw"))
    if draw(st.booleans()):  # a classifier head: the global average pool ends the chain
        n, h, w, c = g.shape
        pooled = g.b.tensor((n, 1, 1, c), scale=g.scale, zero_point=g.zp)
        g.b.op("AVERAGE_POOL_2D", [g.x], [pooled], padding=1, stride_h=1, stride_w=1, filter_height=h, filter_width=w,
               fused_activation_function=draw(st.sampled_from([0, 1, 3])))
        g.x = pooled
    g.b.outputs = [g.x]
    data = rng.integers(-128, 128, size=shape).astype(np.int8)
    return g.b.build(), data, len(kinds) + transposed


def chained_program(model: bytes, recompute: bool = False, tuning: str = "dsp", pulls: bool = False,
                    widened: float = 0.0) -> Program:
    """The model's layers as one LAYER_CHAIN step (recomputing its first stage where it can, with
    `recompute`; pulling its input's rows from the application where it can, with `pulls`), its
    kernels shaped for `tuning`, `widened` of its filter bytes for int16 copies (widened_weights.py), planned."""
    graph = simplify(parse_model(model))
    steps = widen_weights(tuned(build_steps(graph), tuning), widened)
    runs = chain_runs(graph, steps)
    assert runs == [tuple(range(len(steps)))]
    params = chain_step(graph, steps, runs[0], 0).params
    pull = 0 if pulls and params.can_pull() else None
    again = recompute and replace(params, pulls_input=pull).can_recompute()
    fused = (chain_step(graph, steps, runs[0], 0, recompute=again, pulls=pull),)
    plan = plan_vmcu(graph, fused)
    streamed = streamed_ports(graph, fused, [] if pull is None else [0], [])
    return Program(graph, fused, replace(plan, streamed_io=streamed))


def assert_chain_matches(model: bytes, data: np.ndarray, program: Program) -> tuple[np.ndarray, Program]:
    """The chained program is bit-exact with TFLite Micro, hazard-free (the interpreter replays
    every ring load and store) and does the layers' MACs; its output and the unfused program."""
    ours = Interpreter(program).run([data]).outputs[0]
    np.testing.assert_array_equal(ours, run_tflm(model, [data], 1)[0][0])
    unfused = compile_model(model, "vmcu", fuse=False)
    assert program.plan.macs == unfused.plan.macs  # rings of rows: no multiply-accumulate is repeated
    return ours, unfused


@settings(max_examples=40, deadline=None)
@given(chains())
def test_chain_is_bit_exact_and_hazard_free(case):
    model, data, layers = case
    program = chained_program(model)
    ours, unfused = assert_chain_matches(model, data, program)
    assert len(program.steps[0].params.layers) == layers
    assert (program.steps[0].params.pool is None) == (len(unfused.steps) == layers)
    pulled = chained_program(model, pulls=True)  # the input's rows pulled into a ring, where it can
    if pulled.steps[0].params.pulls_input is not None:
        np.testing.assert_array_equal(Interpreter(pulled).run([data]).outputs[0], ours)
        assert pulled.plan.buffers[pulled.graph.storage_of(pulled.graph.inputs[0].tensor)].size == 0
        assert pulled.plan.streamed_io.inputs[0].in_ring
    again = chained_program(model, recompute=True)  # the paper's recomputation, where it applies
    if again.steps[0].params.recompute:
        np.testing.assert_array_equal(Interpreter(again).run([data]).outputs[0], ours)
        assert again.steps[0].params.workspace_bytes < program.steps[0].params.workspace_bytes
        assert again.steps[0].params.recomputed_macs() >= 0
    both = chained_program(model, recompute=True, pulls=True)  # pulled rows, an expansion recomputed
    if both.steps[0].params.recompute and both.steps[0].params.pulls_input is not None:
        np.testing.assert_array_equal(Interpreter(both).run([data]).outputs[0], ours)
        assert both.steps[0].params.recomputed > 0 and both.steps[0].params.recomputed_macs() >= 0


def test_rings_are_as_tall_as_the_next_window_and_pointwise_layers_need_none():
    rng = np.random.default_rng(5)
    g = GraphBuilder(rng, 12, 2)
    for kind, k, stride in [("conv", 3, 2), ("dw", 3, 1), ("conv", 1, 1), ("dw", 5, 2), ("conv", 1, 1)]:
        c_out = g.shape[3] if kind == "dw" else 4
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, c_out, k, stride, depthwise=kind == "dw")
    g.b.outputs = [g.x]
    params: LayerChainParams = chained_program(g.b.build()).steps[0].params
    assert [(s.first, s.end, s.ring_rows) for s in params.stages] == [(0, 1, 3), (1, 3, 5), (3, 5, 0)]
    assert params.workspace_bytes == 3 * 6 * 4 + 5 * 6 * 4  # 6 columns after the first stride, 4 channels


def test_a_stride_beyond_the_window_ends_a_run():
    """A 1x1 stride-2 layer would make rows it then skips: it is no chain member."""
    rng = np.random.default_rng(1)
    g = GraphBuilder(rng, 8, 3)
    for k, stride in [(3, 1), (1, 2), (3, 1), (1, 1)]:
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, 4, k, stride)
    g.b.outputs = [g.x]
    graph = simplify(parse_model(g.b.build()))
    assert chain_runs(graph, build_steps(graph)) == [(2, 3)]


@pytest.mark.parametrize("fuse", [True, False])
def test_the_planner_chains_only_where_it_lowers_the_pool(fuse):
    """A wide intermediate between a stem and two depthwise layers (no inverted bottleneck):
    chained it never exists whole."""
    rng = np.random.default_rng(2)
    g = GraphBuilder(rng, 16, 1)
    for kind, k, stride, c_out in [("conv", 3, 1, 16), ("dw", 3, 2, 16), ("dw", 3, 1, 16)]:
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, c_out, k, stride, depthwise=kind == "dw")
    g.b.outputs = [g.x]
    model = g.b.build()
    program = compile_model(model, "vmcu", fuse=fuse)
    layers = compile_model(model, "vmcu", fuse=False)
    if fuse:
        assert [s.kernel for s in program.steps] == ["LAYER_CHAIN", "DEPTHWISE_CONV_2D"]
        assert program.plan.pool_bytes < layers.plan.pool_bytes // 2
        assert [(f.ops, f.label, f.fused) for f in program.plan.fusion] == [((0, 1), "chain", True)]
    data = rng.integers(-128, 128, size=(1, 16, 16, 1)).astype(np.int8)
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])


def test_recomputation_is_off_by_default_and_reported_when_allowed(tmp_path):
    """--allow-recompute trades the first ring for multiply-accumulates, says how many, and a plan
    written with it runs again as planned."""
    from vmcu_tflite.plan import load_plan
    from vmcu_tflite.pipeline import program_for_plan
    from tests.planner.test_fusion import lead_depthwise_project

    rng = np.random.default_rng(4)
    model = lead_depthwise_project(rng, 10, 4, mid=24, lead_k=1, c_out=4)
    default, allowed = compile_model(model), compile_model(model, recompute=True)
    assert not any(f.recompute for f in default.plan.fusion)
    [choice] = [f for f in allowed.plan.fusion if f.fused]
    assert choice.recompute and choice.recomputed_macs == allowed.steps[0].params.recomputed_macs() > 0
    assert allowed.plan.pool_bytes < default.plan.pool_bytes
    assert allowed.plan.macs == default.plan.macs  # the model's MACs; the extra ones are reported apart
    again = program_for_plan(allowed.graph, load_plan(allowed.plan.dumps(allowed.graph)))
    assert again.steps[0].params.recompute
    data = rng.integers(-128, 128, (1, 10, 10, 4)).astype(np.int8)
    np.testing.assert_array_equal(Interpreter(again).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])


def test_a_recomputed_window_serves_eight_pixels_and_the_report_counts_its_macs():
    """A 1x1 lead (4 -> 24 channels) before a 3x3 stride-1 depthwise on 10 x 10: its window and
    the stage's pixels fit the stack budget for RECOMPUTE_PIXELS = 8 output pixels, so each output
    row makes the lead's pixels of 9 columns (pixels 0-7, the left one padding) and 3 (pixels 8-9)
    over its in-bounds rows (28 over the rows), 96 MACs each, against the 100 pixels made once:
    the kernel declares that window (3 rows of 10 pixels of 24 channels) and is bit-exact."""
    from vmcu_tflite.kernels import describe
    from vmcu_tflite.kernels.ir import RegAlloc
    from vmcu_tflite.kernels.schedule import walk
    from tests.planner.test_fusion import lead_depthwise_project

    rng = np.random.default_rng(4)
    model = lead_depthwise_project(rng, 10, 4, mid=24, lead_k=1, c_out=4)
    program = compile_model(model, recompute=True)
    params = program.steps[0].params
    assert params.recompute and params.stage_tile(1) == 8
    assert params.recomputed_macs() == 24 * 4 * (28 * (9 + 3) - 10 * 10)
    kernel = describe(program.steps[0].kernel, params, program.plan.steps[0].segment_bytes)
    windows = {p.stmt.size for p in walk(kernel.body) if isinstance(p.stmt, RegAlloc) and p.stmt.name == "win"}
    assert windows == {3 * 10 * 24}
    data = rng.integers(-128, 128, (1, 10, 10, 4)).astype(np.int8)
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])
    wide = compile_model(lead_depthwise_project(rng, 6, 4, mid=300, lead_k=1, c_out=4), recompute=True)
    assert wide.steps[0].params.recompute and wide.steps[0].params.stage_tile(1) == 1  # as its stage without it


def test_a_pulling_chain_recomputes_its_expansion_from_a_narrow_ring():
    """MCUNet's stem: 3x3 stride-2 conv -> 1x1 project to 4 -> 1x1 expand to 24 -> 5x5 stride-2
    depthwise -> 1x1. Pulling its input, the chain keeps the pulled rows' ring, so with
    recomputation it is the expansion that keeps no ring: the ring before it holds the 4-channel
    pixels as tall as the depthwise window (5 rows), not the 24-channel ones, and each tile of
    the depthwise's pixels makes its windows' expanded pixels again. Bit-exact, hazard-free, its
    extra MACs counted."""
    rng = np.random.default_rng(7)
    g = GraphBuilder(rng, 14, 3)
    for kind, k, stride, c_out in [("conv", 3, 2, 8), ("conv", 1, 1, 4), ("conv", 1, 1, 24), ("dw", 5, 2, 24),
                                   ("conv", 1, 1, 8)]:
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, c_out, k, stride, depthwise=kind == "dw")
    g.b.outputs = [g.x]
    model = g.b.build()
    plain, program = chained_program(model, pulls=True), chained_program(model, recompute=True, pulls=True)
    params = program.steps[0].params
    assert params.pulls_input == 0 and params.recomputed == 1
    assert [(s.first, s.end, s.ring_rows) for s in params.stages] == [(0, 2, 5), (2, 3, 5), (3, 5, 0)]
    assert params.workspace_bytes == 3 * 14 * 3 + 5 * 7 * 4  # the pulled rows, then 5 rows of 7 x 4
    assert plain.steps[0].params.workspace_bytes == 3 * 14 * 3 + 5 * 7 * 24
    # the depthwise's 4 output rows read 3 + 5 + 5 + 3 of the 7 rows; its tiles of 2 pixels
    # columns 0-4 and 2-6; each of those 16 x 10 pixels costs the expansion 24 x 4 MACs
    assert params.stage_tile(2) == 2 and params.recomputed_macs() == 24 * 4 * (16 * 10 - 7 * 7)
    data = rng.integers(-128, 128, (1, 14, 14, 3)).astype(np.int8)
    np.testing.assert_array_equal(Interpreter(program).run([data]).outputs[0], run_tflm(model, [data], 1)[0][0])


def test_a_chain_has_at_most_max_stages_and_then_fits_the_schedule():
    """Rows inside rows deepen the kernel's loop nest with every stage: past MAX_STAGES its
    schedule would outgrow the 64-bit time the interpreter and the gap model use, so no chain is
    that deep; one of MAX_STAGES stages still fits."""
    from vmcu_tflite.chain import MAX_STAGES
    from vmcu_tflite.fusion import chain_params
    from vmcu_tflite.kernels import describe
    from vmcu_tflite.kernels.schedule import clock

    rng = np.random.default_rng(6)
    g = GraphBuilder(rng, 12, 2)
    g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, 24, 3, 1)
    for _ in range(10):
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, g.shape[3], 3, 1, depthwise=True)
        g.x, g.shape, g.scale, g.zp = g.conv(g.x, g.shape, 24, 1, 1)
    g.b.outputs = [g.x]
    graph = simplify(parse_model(g.b.build()))
    steps = build_steps(graph)
    deepest = 1 + 2 * (MAX_STAGES - 1)  # the stem, then a depthwise and a 1x1 per stage
    assert chain_params(graph, steps, range(deepest + 2)) is None
    step = chain_step(graph, steps, tuple(range(deepest)), 0)
    assert len(step.params.stages) == MAX_STAGES
    clock(describe(step.kernel, step.params, 4)).weights()  # raises if the schedule does not fit


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)  # one test per fixture: the workers share them
def test_recomputation_is_taken_only_where_it_lowers_the_pool(path, shared_plans):
    """--allow-recompute buys bytes with multiply-accumulates: a plan that recomputes and holds
    as many bytes as the plan without is not taken (MCUNet-VWW's streamed plan was, at 1.9x MACs)."""
    default, allowed = compile_model(path), compile_model(path, recompute=True)
    recomputes = any(f.fused and f.recompute for f in allowed.plan.fusion)
    assert not recomputes or allowed.plan.pool_bytes < default.plan.pool_bytes, path.stem
    assert allowed.plan.pool_bytes <= default.plan.pool_bytes, path.stem
