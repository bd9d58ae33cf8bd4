"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) and CALL_ONCE initialisation
subgraphs, against TFLite Micro: how the reader accepts and refuses further subgraphs, that reads
and assignments keep TFLite Micro's operator order, and when the initial values apply (the first
run; a reset refills zero points and does not run CALL_ONCE again)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.op_harness import assert_sequence_matches_tflm
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import parse_model
from vmcu_tflite.state import TAG_BYTES, state_layout

SHAPE = (1, 3, 3)


def stateful(init: np.ndarray | None = np.arange(-4, 5, dtype=np.int8).reshape(SHAPE), read_after_assign=True,
             state_type: str = "int8", init_op: str | None = None, assign_size: int = 3, second_name=b"state",
             container: bytes | None = None) -> bytes:
    """x [1,3,3] in; state = READ(var); y = BATCH_MATMUL(x, state); ASSIGN(var, y); with
    `read_after_assign` a second READ after the ASSIGN is a second output (this run's new value).
    CALL_ONCE (op 0) runs subgraph 1, which assigns `init` (None: no CALL_ONCE, no subgraph) or,
    with `init_op`, that op of a constant."""
    b = ModelBuilder()
    x = b.tensor(SHAPE, scale=0.05, zero_point=3, name="x")
    handle = b.tensor((), "resource", name="handle")
    state = b.tensor(SHAPE, state_type, scale=0.04, zero_point=-2, name="state")
    y = b.tensor((1, 3, assign_size), scale=0.06, zero_point=1, name="y")
    if init is not None:
        b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    options = dict(shared_name=b"state", **({"container": container} if container else {}))
    b.op("VAR_HANDLE", [], [handle], **options)
    b.op("READ_VARIABLE", [handle], [state])
    w = b.const(np.random.default_rng(1).integers(-128, 128, (1, 3, assign_size)).astype(np.int8), scale=0.05,
                zero_point=0) if assign_size != 3 else None
    b.op("BATCH_MATMUL", [x, state] if w is None else [x, w], [y])
    b.op("ASSIGN_VARIABLE", [handle, y], [])
    outputs = [y]
    if read_after_assign:
        again = b.tensor(SHAPE, scale=0.04, zero_point=-2, name="again")
        b.op("READ_VARIABLE", [handle], [again])
        outputs.append(again)
    b.inputs, b.outputs = [x], outputs
    if init is not None:
        b.next_subgraph()
        sub_handle = b.tensor((), "resource", name="handle")
        b.op("VAR_HANDLE", [], [sub_handle], shared_name=second_name)
        value = b.const(init, scale=0.04, zero_point=-2)
        if init_op is not None:
            computed = b.tensor(init.shape, scale=0.04, zero_point=-2)
            b.op(init_op, [value], [computed])
            value = computed
        b.op("ASSIGN_VARIABLE", [sub_handle, value], [])
    return b.build()


def _inputs(runs: int, seed: int = 0) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [[rng.integers(-128, 128, SHAPE).astype(np.int8)] for _ in range(runs)]


@pytest.mark.parametrize("read_after_assign", [True, False])
def test_reads_and_assignments_follow_tflite_micro_over_a_sequence(read_after_assign):
    ours = assert_sequence_matches_tflm(stateful(read_after_assign=read_after_assign), _inputs(4))
    assert len({run[0].tobytes() for run in ours}) == 4  # each run's output depends on the runs before
    if read_after_assign:  # the READ after the ASSIGN gives this run's new bytes, reinterpreted
        assert all(run[1].tobytes() == run[0].tobytes() for run in ours)


def test_without_call_once_the_variable_starts_at_its_zero_point():
    """No initialisation: TFLite Micro fills the variable with the zero point of the value that
    allocated it (the first ASSIGN_VARIABLE's, here y's 1), not the READ output's (-2)."""
    model = stateful(init=None)
    assert_sequence_matches_tflm(model, _inputs(3))
    layout = state_layout(compile_model(model).graph)
    assert [fill for _, _, fill in layout.initial] == [1] and not layout.flags


def test_the_initial_value_applies_on_the_first_run_only_and_a_reset_keeps_call_once_done():
    """As TFLite Micro's Reset: zero points again, CALL_ONCE not run again; a fresh region (another
    interpreter) starts from the initial values."""
    from tflite_micro.python.tflite_micro import runtime

    model = stateful()
    runs = _inputs(3, seed=4)
    tflm = runtime.Interpreter.from_bytes(model, arena_size=1 << 16)

    def tflm_run(x):
        tflm.set_input(x, 0)
        tflm.invoke()
        return tflm.get_output(0).copy()

    interpreter = Interpreter(compile_model(model))
    first = [interpreter.run(r).outputs[0] for r in runs]
    assert all(np.array_equal(a, tflm_run(r[0])) for a, r in zip(first, runs))
    interpreter.reset_state()
    tflm.reset()
    after = [interpreter.run(r).outputs[0] for r in runs]
    assert all(np.array_equal(a, tflm_run(r[0])) for a, r in zip(after, runs))
    assert not np.array_equal(first[0], after[0])  # the zero points, not the initial values
    fresh = Interpreter(compile_model(model)).run(runs[0]).outputs[0]
    assert np.array_equal(fresh, first[0])
    # a reset before the first run: CALL_ONCE has not run yet, so the initial values still apply
    tflm = runtime.Interpreter.from_bytes(model, arena_size=1 << 16)
    tflm.reset()
    early = Interpreter(compile_model(model))
    early.reset_state()
    assert np.array_equal(early.run(runs[0]).outputs[0], tflm_run(runs[0][0]))


def test_the_state_region_holds_the_variable_then_the_flag():
    program = compile_model(stateful())
    layout = state_layout(program.graph)
    (variable, offset), = layout.offsets.items()
    assert program.graph.tensors[variable].is_variable and offset == TAG_BYTES
    assert list(layout.flags.values()) == [TAG_BYTES + 12] and layout.bytes == TAG_BYTES + 12 + 4
    kinds = [s.kernel for s in program.steps]
    assert kinds == ["CALL_ONCE", "READ_VARIABLE", "BATCH_MATMUL", "ASSIGN_VARIABLE", "READ_VARIABLE"]
    assert [s.outputs for s in program.steps if s.kernel in ("CALL_ONCE", "ASSIGN_VARIABLE")] == [(), ()]


def test_handles_are_matched_by_name_and_a_missing_container_matches_any():
    graph = parse_model(stateful(container=b"c"))
    (op,) = [op for op in graph.ops if op.kind == "CALL_ONCE"]
    (variable, value), = op.options["initial"]
    assert graph.tensors[variable].name == "state" and list(value) == list(range(-4, 5))


def _refusal(model: bytes) -> str:
    with pytest.raises(ModelError) as err:
        parse_model(model)
    line = str(err.value)
    assert "\n" not in line
    return line


def test_an_initialisation_that_computes_is_refused_naming_it():
    line = _refusal(stateful(init_op="RELU"))
    assert line == ("the model has 2 subgraphs (subgraph 1: CALL_ONCE's initialisation, which computes RELU at run "
                    "time); besides the main one only CALL_ONCE initialisation subgraphs that assign constants to "
                    "variables are supported")


def test_variables_of_other_types_are_refused_with_everything_else():
    """A float variable (the converter's default without variable quantization): its type and the
    float activations, in one line."""
    b = ModelBuilder()
    x, old, new = (b.tensor((1, 4), "float32", name=n) for n in ("x", "old", "new"))
    handle = b.tensor((), "resource", name="h")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], [handle], shared_name=b"window")
    b.op("READ_VARIABLE", [handle], [old])
    b.op("ADD", [old, x], [new])
    b.op("ASSIGN_VARIABLE", [handle, new], [])
    b.inputs, b.outputs = [x], [new]
    b.next_subgraph()
    h = b.tensor((), "resource")
    b.op("VAR_HANDLE", [], [h], shared_name=b"window")
    b.op("ASSIGN_VARIABLE", [h, b.const(np.ones((1, 4), np.float32))], [])
    line = _refusal(b.build())
    assert line.startswith("resource variable 'window' of type FLOAT32 (only int8 resource variables are supported); "
                           "float activations are not supported"), line


def test_a_variable_never_assigned_and_sizes_that_differ_are_refused():
    b = ModelBuilder()
    handle, out = b.tensor((), "resource"), b.tensor(SHAPE, scale=0.1, name="out")
    b.op("VAR_HANDLE", [], [handle], shared_name=b"lonely")
    b.op("READ_VARIABLE", [handle], [out])
    b.inputs, b.outputs = [out], [out]
    assert _refusal(b.build()) == "variable 'lonely' is read but never assigned (TFLite Micro holds no bytes for it)"
    assert "TFLite Micro copies the variable's bytes" in _refusal(stateful(assign_size=4))


def test_while_and_if_subgraphs_stay_refused_with_call_once_accepted():
    """A model with an accepted initialisation subgraph and a WHILE: only the WHILE's subgraph is named."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4), scale=0.1, name="x"), b.tensor((1, 4), scale=0.1, name="y")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("WHILE", [x], [y], cond_subgraph_index=2, body_subgraph_index=2)
    b.inputs, b.outputs = [x], [y]
    b.next_subgraph()
    h = b.tensor((), "resource")
    b.op("VAR_HANDLE", [], [h], shared_name=b"v")
    b.op("ASSIGN_VARIABLE", [h, b.const(np.zeros((1, 4), np.int8), scale=0.1)], [])
    b.next_subgraph()
    i, o = b.tensor((1, 4), scale=0.1), b.tensor((1, 4), "bool")
    b.op("LESS", [i, i], [o])
    b.inputs, b.outputs = [i], [o]
    assert _refusal(b.build()).split("; supported: ")[0] == (
        "unsupported operators WHILE (op 1), LESS (subgraph 2 op 0); the model has 3 subgraphs (subgraph 2: WHILE's "
        "condition and WHILE's body); besides the main one only CALL_ONCE initialisation subgraphs that assign "
        "constants to variables are supported")


def test_a_subgraph_both_initialisation_and_loop_body_is_refused():
    """CALL_ONCE's subgraph that a WHILE also runs is no initialisation evaluated ahead of time."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4), scale=0.1, name="x"), b.tensor((1, 4), scale=0.1, name="y")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("WHILE", [x], [y], cond_subgraph_index=1, body_subgraph_index=1)
    b.inputs, b.outputs = [x], [y]
    b.next_subgraph()
    h = b.tensor((), "resource")
    b.op("VAR_HANDLE", [], [h], shared_name=b"v")
    b.op("ASSIGN_VARIABLE", [h, b.const(np.zeros((1, 4), np.int8), scale=0.1)], [])
    assert "(subgraph 1: CALL_ONCE's initialisation and WHILE's condition and WHILE's body)" in _refusal(b.build())
