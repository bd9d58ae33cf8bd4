"""Streamed inputs and outputs in the reference interpreter: bit-exact with TFLite Micro, the
protocol (each row once, in order, where the plan keeps it) checked, and the checks able to fail."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS, SHARED
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_reference.interpreter import Interpreter
from vmcu_reference.row_stream import RowSink, RowSource
from vmcu_tflite import chain as chain_module
from vmcu_tflite.api import convert
from vmcu_tflite.errors import HazardError, MismatchError, UsageError
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.access import output_after_workspaces
from vmcu_tflite.oracle import run_tflm, tflm_arena_bytes
from vmcu_tflite.plan import workspace_id
from vmcu_tflite.planner import streaming as streaming_module
from vmcu_tflite.kernels import chain as chain_kernel
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.streamed_io import StreamedPort, row_layout


def valid_stride2_chain(hw: int = 9) -> bytes:
    """A 3x3 stride-2 convolution without padding, then a 3x3 depthwise: the input's last row is
    below every window, so the chain pulls it after its last output row, unread."""
    rng = np.random.default_rng(5)
    b = ModelBuilder()
    x = b.tensor((1, hw, hw, 2), scale=0.05, zero_point=-3)
    b.inputs = [x]
    o = (hw - 3) // 2 + 1
    w = b.const(random_weights(rng, (6, 3, 3, 2)), scale=[0.01] * 6, zero_point=0, axis=0)
    y = b.tensor((1, o, o, 6), scale=0.1, zero_point=2)
    b.op("CONV_2D", [x, w, b.const(random_bias(rng, 6), scale=[0.0005] * 6, zero_point=0)], [y],
         padding=1, stride_h=2, stride_w=2)
    d = b.const(random_weights(rng, (1, 3, 3, 6)), scale=[0.02] * 6, zero_point=0, axis=3)
    z = b.tensor((1, o, o, 6), scale=0.2, zero_point=-1)
    b.op("DEPTHWISE_CONV_2D", [y, d, b.const(random_bias(rng, 6), scale=[0.002] * 6, zero_point=0)], [z],
         padding=0, stride_h=1, stride_w=1, depth_multiplier=1)
    b.outputs = [z]
    return b.build()


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_every_fixture_streams_bit_exact_with_tflite_micro(path, shared_plans):
    """Every input pulled and every output pushed row by row: the values TFLite Micro computes,
    step by step, and never a larger pool than with the inputs whole."""
    streamed = convert(path, stream_inputs=True, stream_outputs=True)
    whole = convert(path)
    x = whole.random_inputs(7)
    outputs = streamed.run(x, compare_tflm=True)
    for ours, theirs in zip(outputs, whole.run(x)):
        np.testing.assert_array_equal(ours, theirs)
    assert streamed.pool_bytes <= whole.pool_bytes
    assert streamed.macs == whole.macs


def test_an_output_larger_than_its_input_is_pushed_from_a_ring_of_one_row(tmp_path):
    """The head's 1x1 layer becomes a chain of one that hands each output row to the application
    as soon as it is made, from a ring of one row in its workspace: the output never exists
    whole, so the pool holds the layer's input and one row. Bit-exact, rows once and in order,
    in plan.json, and rebuilt from it."""
    from tests.models_under_test import expanding_head
    from vmcu_tflite.plan import load_plan
    from vmcu_tflite.pipeline import program_for_plan

    model = expanding_head()
    whole, pushed = compile_model(model), compile_model(model, stream_outputs=[0])
    port = pushed.plan.streamed_io.outputs[0]
    assert port.in_ring and (port.rows, port.row_bytes) == (8, 8 * 16)
    step = pushed.steps[port.step]
    assert step.kernel == "LAYER_CHAIN" and step.params.pushes_output == 0 and step.params.output_ring_bytes == 128
    assert pushed.plan.pool_bytes == 8 * 8 * 4 + 128 < whole.plan.pool_bytes == 8 * 8 * 16
    x = np.random.default_rng(1).integers(-128, 128, (1, 8, 8, 3)).astype(np.int8)
    trace: list[str] = []
    got = Interpreter(pushed, trace=trace.append).run([x]).outputs[0]
    np.testing.assert_array_equal(got, run_tflm(model, [x], 1)[0][0])
    assert [line for line in trace if line.startswith("push")] == [
        f"push output 0 row {r}: 128 bytes" for r in range(8)]
    again = program_for_plan(pushed.graph, load_plan(pushed.plan.dumps(pushed.graph)))
    assert again.steps[port.step].params.pushes_output == 0
    np.testing.assert_array_equal(Interpreter(again).run([x]).outputs[0], got)


def test_an_output_row_pushed_before_it_is_made_is_a_hazard(monkeypatch):
    """The checks can fail: a PushRow moved ahead of the row's pixels reads bytes not stored yet."""
    from tests.models_under_test import expanding_head
    from vmcu_tflite import kernels
    from vmcu_tflite.kernels.ir import Loop, PushRow

    program = compile_model(expanding_head(), stream_outputs=[0])
    made = kernels.layer_chain

    def early(params, segment):
        kernel = made(params, segment)
        rows = next(s for s in kernel.body if isinstance(s, Loop) and s.var == "y")
        push = next(s for s in rows.body if isinstance(s, PushRow))
        body = (push, *(s for s in rows.body if s is not push))
        return replace(kernel, body=tuple(replace(rows, body=body) if s is rows else s for s in kernel.body))
    monkeypatch.setattr(kernels, "layer_chain", early)
    x = np.zeros((1, 8, 8, 3), np.int8)
    with pytest.raises(HazardError, match="not stored yet"):
        Interpreter(program).run([x])


def test_a_chain_pulls_the_rows_below_its_last_window_too():
    model = valid_stride2_chain()
    program = compile_model(model, stream_inputs=[0])
    port = program.plan.streamed_io.inputs[0]
    assert port.in_ring and (port.rows, port.row_bytes) == (9, 18)
    assert program.steps[0].params.input_ring_rows == 3
    log = []
    x = convert(model).random_inputs(1)
    Interpreter(program, trace=log.append).run(x)
    pulls = [line for line in log if line.startswith("pull input 0")]
    assert [int(line.split()[4].rstrip(":")) for line in pulls] == list(range(9))
    np.testing.assert_array_equal(Interpreter(program).run(x).outputs[0], convert(model).run(x)[0])


def test_the_ring_one_row_short_is_a_hazard(monkeypatch):
    """Mutation: a ring one row shorter than the window lets a pulled row land on a row the window
    still reads; the interpreter must name it."""
    model = valid_stride2_chain()
    monkeypatch.setattr(chain_module.LayerChainParams, "input_ring_rows",
                        property(lambda self: 0 if self.pulls_input is None else self.layers[0].filter.shape[1] - 1))
    program = compile_model(model, stream_inputs=[0])
    assert program.plan.streamed_io.inputs[0].in_ring
    with pytest.raises(HazardError, match="input0"):
        Interpreter(program).run(convert(model).random_inputs(1))


def test_rows_pulled_out_of_order_are_refused(monkeypatch):
    """Mutation: a kernel that pulls each window's new rows last first breaks the protocol."""
    original = chain_kernel._pull_loop

    def backwards(params, lo, hi):
        made = original(params, lo, hi)
        pull = made.body[0]
        row = made.hi - 1 - (pull.row - made.lo)
        return type(made)(made.var, made.lo, made.hi, (type(pull)(pull.tensor, row * pull.length, pull.length, "",
                                                                   row=row, input=pull.input),), made.step)

    monkeypatch.setattr(chain_kernel, "_pull_loop", backwards)
    program = compile_model(valid_stride2_chain(), stream_inputs=[0])
    with pytest.raises(HazardError, match="rows go once, in order"):
        Interpreter(program).run(convert(valid_stride2_chain()).random_inputs(1))


def test_rows_pulled_after_the_step_that_reads_them_is_a_hazard():
    """Mutation: a plan that pulls a whole input one step late: the first step reads bytes that are
    not there."""
    program = compile_model(FIXTURES[0], stream_inputs=[0])
    port = program.plan.streamed_io.inputs[0]
    assert not port.in_ring and port.step == 0
    late = type(program.plan.streamed_io)((StreamedPort(port.index, port.rows, port.row_bytes, 1),))
    broken = replace(program, plan=replace(program.plan, streamed_io=late))
    with pytest.raises(HazardError):
        Interpreter(broken).run(convert(FIXTURES[0]).random_inputs(0))


def test_the_row_source_takes_each_row_once_in_order_and_all_of_them():
    port = StreamedPort(0, 3, 4, 0)
    source = RowSource((port,), {0: np.arange(12, dtype=np.int8)})
    np.testing.assert_array_equal(source.pull(0, 0, 4), [0, 1, 2, 3])
    with pytest.raises(HazardError, match="again"):
        source.pull(0, 0, 4)
    with pytest.raises(HazardError, match="before row 1"):
        source.pull(0, 2, 4)
    with pytest.raises(HazardError, match="5 bytes"):
        source.pull(0, 1, 5)
    source.pull(0, 1, 4)
    with pytest.raises(HazardError, match="2 of the 3 rows"):
        source.finish()
    sink = RowSink((port,))
    with pytest.raises(HazardError, match="before row 0"):
        sink.push(0, 1, np.zeros(4, np.int8))


def test_rows_are_the_outermost_dimension_that_is_not_a_batch_of_one():
    assert row_layout((1, 96, 96, 3)) == (96, 288)
    assert row_layout((1, 49, 10, 1)) == (49, 10)
    assert row_layout((1, 640)) == (1, 640)  # a vector is one row
    assert row_layout((640,)) == (1, 640)
    assert row_layout((4, 10)) == (4, 10)
    assert row_layout((1, 8, 2), itemsize=2) == (8, 4)


def test_a_port_that_does_not_exist_is_a_usage_error():
    with pytest.raises(UsageError, match="no input 3"):
        convert(FIXTURES[0], stream_inputs=[3])
    with pytest.raises(UsageError, match="no output 5, 6"):
        convert(FIXTURES[0], stream_outputs=[5, 6])


def test_plans_without_streaming_are_unchanged():
    """Streaming is opt-in: nothing of a default plan mentions it."""
    for path in FIXTURES[:6]:
        plan = compile_model(path).plan
        assert not plan.streamed_io and plan.streamed_io.to_json()["inputs"] == []
        assert all(getattr(s.params, "pulls_input", None) is None for s in compile_model(path).steps)


SHARED_POOLS = {  # model -> most pool bytes with its input streamed (below msf-CNN's 63,456 and 15,368)
    "mcunet-320kb-1mb_imagenet": 56_000,
    "mcunet-vww1": 14_000,
}


def conv_stack_streamed():
    """conv_stack with its input pulled: the chain's last stage (a 3x3 stride-2 convolution) reads
    its ring as a line buffer."""
    model = FIXTURES[[p.stem for p in FIXTURES].index("conv_stack")]
    program = compile_model(model, stream_inputs=[0])
    return model, program, next(s.params for s in program.steps if s.kernel == "LAYER_CHAIN")


def test_a_line_ring_keeps_its_window_less_a_row_and_a_window_of_pixels():
    model, program, chain = conv_stack_streamed()
    stage = chain.stages[chain.line_ring]
    _, _, w, c = chain.stage_output(stage)
    head = chain.layers[chain.stages[chain.line_ring + 1].first]
    assert chain.line_ring == len(chain.stages) - 2
    assert (stage.ring_rows - 1) * w * c < chain.ring_bytes(stage) < stage.ring_rows * w * c
    assert chain.ring_bytes(stage) <= ((stage.ring_rows - 1) * w + 2 * head.filter.shape[2] + 2 * head.stride[1]) * c
    x = convert(model).random_inputs(3)
    np.testing.assert_array_equal(Interpreter(program).run(x).outputs[0], convert(model).run(x)[0])
    assert all(getattr(s.params, "line_ring", None) is None for s in compile_model(model).steps)  # opt-in


def test_a_line_ring_is_in_plan_json_and_runs_again_from_it(tmp_path):
    """Line rings cost instructions, so a plan takes them only where the pool gets smaller:
    plan.json says where, and `--plan` makes the same chains again."""
    model, _, _ = conv_stack_streamed()
    program = convert(model, stream_inputs=True)
    program.write(tmp_path)
    again = convert(model, plan=tmp_path / "plan.json")
    assert [f.get("line_ring") for f in again.plan["fused_blocks"]] == [True]
    assert again.pool_bytes == program.pool_bytes
    assert all("line_ring" not in f for f in convert(model).plan["fused_blocks"])


def test_a_line_ring_one_pixel_short_is_a_hazard(monkeypatch):
    """Mutation: one pixel fewer lets the last row's newest pixel land on one the window's top
    row still has to give; the interpreter must name the ring."""
    line_ring_pixels = chain_module.LayerChainParams.line_ring_pixels
    monkeypatch.setattr(chain_module.LayerChainParams, "line_ring_pixels",
                        lambda self, i=None: line_ring_pixels(self, i) - 1)
    model, program, chain = conv_stack_streamed()
    assert chain.line_ring is not None
    with pytest.raises(HazardError, match="ring1"):
        Interpreter(program).run(convert(model).random_inputs(3))


def mixed_streamed():
    """mixed_int8_int16 with its image pulled: one chain (3x3 stride-2 convolution, 3x3 depthwise
    over a 4x4 map, global average pool) pulls the rows and ends in the pool's means."""
    model = FIXTURES[[p.stem for p in FIXTURES].index("mixed_int8_int16")]
    program = compile_model(model, stream_inputs=[0])
    return model, program, next(s for s in program.steps if s.kernel == "LAYER_CHAIN")


def test_a_narrow_map_keeps_its_line_ring_one_pixel_at_a_time():
    """Four pixels wide, the depthwise layer's three rows are 12 pixels; a line buffer fed and read
    two pixels at a time would take 13, one at a time 11: both stages around it then make one
    pixel per iteration. Bit-exact, and where the rows fit no line ring is kept."""
    model, program, step = mixed_streamed()
    chain = step.params
    assert chain.single_pixel_line and chain.line_ring == 0
    assert [chain.stage_tile(i) for i in range(len(chain.stages))] == [1, 1]
    assert chain.line_ring_pixels() == 2 * 4 + 3 and chain.ring_bytes(chain.stages[0]) == 11 * 8
    x = convert(model).random_inputs(4)
    np.testing.assert_array_equal(Interpreter(program).run(x).outputs[0], convert(model).run(x)[0])
    _, _, wide = conv_stack_streamed()  # its line ring beats its rows with tiles of two pixels
    assert wide.line_ring is not None and not wide.single_pixel_line


def test_a_chain_ending_in_a_global_pool_stores_its_means_over_its_rings():
    """The pool's sums stay in registers and the means are stored after the last ring read (the
    kernel description says so), so the planner lays the chain's output over its workspace: the
    mixed graph's streamed pool is its input ring and line ring, 72 + 88 bytes, half TFLite Micro's
    arena head. A chain that stores output rows while its rings are live gets no such overlap."""
    model, program, step = mixed_streamed()
    plan = program.plan
    assert output_after_workspaces(describe(step.kernel, step.params, plan.steps[step.index].segment_bytes))
    out, ws = program.graph.storage_of(step.outputs[0]), workspace_id(step.index)
    shared = {(plan.offsets[out] + k) % plan.pool_bytes for k in range(plan.buffers[out].size)} & {
        (plan.offsets[ws] + k) % plan.pool_bytes for k in range(plan.buffers[ws].size)}
    assert shared and plan.pool_bytes == 72 + 88
    data = model.read_bytes()
    head = tflm_arena_bytes(data, convert(model).random_inputs(0))["head"]
    assert 2 * plan.pool_bytes <= head
    _, stack, chain = conv_stack_streamed()
    k = next(s.index for s in stack.steps if s.kernel == "LAYER_CHAIN")
    assert not output_after_workspaces(describe("LAYER_CHAIN", chain, stack.plan.steps[k].segment_bytes))


def test_an_output_laid_over_live_rings_is_a_hazard(monkeypatch):
    """Mutation: a planner that lays every chain's output over its workspace writes conv_stack's
    output rows over rings its later rows still read; the interpreter must stop."""
    _, honest, _ = conv_stack_streamed()
    monkeypatch.setattr(streaming_module, "writes_output_last", lambda step, segment: True)
    model, program, _ = conv_stack_streamed()
    assert program.plan.pool_bytes < honest.plan.pool_bytes  # the output did go over the rings
    with pytest.raises(HazardError, match="workspace of step"):
        Interpreter(program).run(convert(model).random_inputs(3))


def frames_streamed(stem: str = "lstm_16x8"):
    model = FIXTURES[[p.stem for p in FIXTURES].index(stem)]
    return model, compile_model(model, stream_inputs=[0])


@pytest.mark.parametrize("stem", ["lstm_16x8", "gru_16x8", "lstm_unrolled"])
def test_a_sequence_unpacked_into_frames_is_pulled_frame_by_frame(stem, tmp_path, shared_plans):
    """An unrolled recurrent model UNPACKs its sequence into frames at its start; streamed, each
    frame is pulled into its part just before the first step that reads it, in order, so the
    sequence never exists whole and a frame lives from its time step on: a smaller pool, bit-exact,
    and `--plan` makes the same steps again."""
    model, program = frames_streamed(stem)
    steps = program.steps
    pulled = [s for s in steps if s.kernel == "PULLED_ROW"]
    assert [s.params.row for s in pulled] == list(range(5))
    for s in pulled:  # each right before the first reader of its part
        assert s.outputs[0] in steps[s.index + 1].inputs or steps[s.index + 1].kernel == "PULLED_ROW"
    (port,) = program.plan.streamed_io.inputs
    assert port.parts and port.in_ring and port.step == pulled[0].index
    whole = convert(model)
    assert program.plan.pool_bytes < whole.pool_bytes and program.plan.macs == whole.macs
    x = whole.random_inputs(2)
    np.testing.assert_array_equal(Interpreter(program).run(x).outputs[0], whole.run(x)[0])
    streamed = convert(model, stream_inputs=True)
    streamed.write(tmp_path)
    again = convert(model, plan=tmp_path / "plan.json")
    assert again.pool_bytes == streamed.pool_bytes
    np.testing.assert_array_equal(again.run(x)[0], whole.run(x)[0])


def test_frames_pulled_out_of_order_or_into_the_wrong_part_are_caught(shared_plans):
    """Mutations: two frames' rows swapped (the application serves rows once, in order), or a
    frame pulled into another frame's part (its bytes are not the UNPACK's): the interpreter stops."""
    model, program = frames_streamed()
    x = convert(model).random_inputs(2)
    steps = list(program.steps)
    a, b = [s.index for s in steps if s.kernel == "PULLED_ROW"][1:3]
    swapped = steps.copy()
    swapped[a] = replace(steps[a], params=replace(steps[a].params, row=steps[b].params.row))
    swapped[b] = replace(steps[b], params=replace(steps[b].params, row=steps[a].params.row))
    with pytest.raises(HazardError, match="asked for before row"):
        Interpreter(replace(program, steps=tuple(swapped))).run(x)
    wrong = steps.copy()
    wrong[a] = replace(steps[a], params=replace(steps[a].params, part=steps[b].params.part))
    with pytest.raises(MismatchError, match="PULLED_ROW.*where TFLite's formula gives"):
        Interpreter(replace(program, steps=tuple(wrong))).run(x)


@pytest.mark.skipif(not REAL_MODELS, reason=f"shared models not present in {SHARED}")
@pytest.mark.parametrize("tuning", ["dsp", "helium"])
@pytest.mark.parametrize("path", [m for m in REAL_MODELS if m.stem != "mcunet-320kb-1mb_imagenet"],  # its run: the C tests'
                         ids=lambda p: p.stem)
def test_every_shared_model_streamed_is_hazard_free_in_both_tunings(path, tuning, shared_plans):
    """Regression: a pulling plan re-placed without the distances its GEMM tiles need wrote person
    detection's fourth pointwise layer over input it had still to read (helium tuning)."""
    program = compile_model(path, stream_inputs=[0], tuning=tuning)
    x = convert(path).random_inputs(0)
    np.testing.assert_array_equal(Interpreter(program).run(x).outputs[0], convert(path).run(x)[0])


@pytest.mark.skipif(not REAL_MODELS, reason=f"shared models not present in {SHARED}")
@pytest.mark.parametrize("name", sorted(SHARED_POOLS))
def test_streamed_image_models_go_below_the_newest_research_at_their_own_macs(name, shared_plans):
    path = SHARED / f"{name}.tflite"
    if not path.exists():
        pytest.skip(f"{path.name} not present")
    whole, streamed = compile_model(path), compile_model(path, stream_inputs=[0])
    assert streamed.plan.pool_bytes < SHARED_POOLS[name]
    assert streamed.plan.macs == whole.plan.macs
    assert streamed.plan.streamed_io.inputs[0].in_ring
    assert streamed.plan.streamed_io.pool_bytes_whole == whole.plan.pool_bytes


def test_a_streamed_plan_json_runs_again_as_it_was_planned(tmp_path):
    """plan.json carries the streamed ports and the chains that pull: `--plan` runs the same program."""
    model = FIXTURES[[p.stem for p in FIXTURES].index("kws_like")]
    program = convert(model, stream_inputs=True, stream_outputs=True)
    program.write(tmp_path)
    again = convert(model, plan=tmp_path / "plan.json")
    assert again.plan["streamed_io"] == program.plan["streamed_io"] and again.plan["streamed_io"]["inputs"][0]["in_ring"]
    assert again.pool_bytes == program.pool_bytes
    x = program.random_inputs(2)
    for ours, theirs in zip(again.run(x, compare_tflm=True), program.run(x)):
        np.testing.assert_array_equal(ours, theirs)
    assert "streamed_io" not in convert(model).plan
