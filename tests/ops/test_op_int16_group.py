"""int16 element-wise groups (the INT16_GROUP step): chains of int16 LOGISTIC, TANH, RELU, RELU6,
LEAKY_RELU, ADD, SUB and MUL that read the model's input again and again, grouped, against TFLite
Micro, and plans the interpreter must refuse (an output or a workspace placed over input bytes still
to be read). The planner's choice: tests/planner/test_int16_groups.py."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import event, given, settings, strategies as st

from tests.op_harness import assert_matches_tflm
from tests.ops.test_op_int16_binary import int16_values
from tests.tflite_builder import ModelBuilder
from vmcu_reference.interpreter import Interpreter
from vmcu_tflite.errors import HazardError, ModelError
from vmcu_tflite.ops import prepare
from vmcu_tflite.pipeline import Program, compile_model
from vmcu_tflite.plan import workspace_id
from vmcu_tflite.reader import parse_model

UNARY = ("LOGISTIC", "TANH", "RELU", "RELU6", "LEAKY_RELU")
BINARY = ("ADD", "SUB", "MUL")
SIGMOID_SCALE = 2.0 ** -15  # TFLite Micro's int16 LOGISTIC and TANH output scale


def chain_model(shape, ops, scales) -> bytes:
    """`ops`: (kind, other) pairs applied in order to the previous result (the input first), a binary
    op's second operand the input (other = -1) or the result of op `other`; `scales`: each result's
    (LOGISTIC's and TANH's are 2^-15). Every zero point is 0."""
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=1 / 4096, zero_point=0)
    b.inputs = [x]
    results, previous = [], x
    for (kind, other), scale in zip(ops, scales):
        y = b.tensor(shape, "int16", scale=SIGMOID_SCALE if kind in ("LOGISTIC", "TANH") else scale, zero_point=0)
        if kind in BINARY:
            b.op(kind, [previous, x if other < 0 else results[other]], [y], fused_activation_function=0)
        else:
            b.op(kind, [previous], [y], **({"alpha": 0.3} if kind == "LEAKY_RELU" else {}))
        results.append(y)
        previous = y
    b.outputs = [previous]
    return b.build()


@st.composite
def chains(draw):
    """2 to 8 ops, the last a binary op reading the input (so the input lives through the chain and
    grouping saves pool bytes), of 100 to 400 elements (blocks of 32 and a partial last one)."""
    n = draw(st.integers(2, 8))
    ops = []
    for k in range(n - 1):
        kind = draw(st.sampled_from(UNARY + BINARY))
        ops.append((kind, draw(st.integers(-1, k - 1)) if kind in BINARY else 0))
    ops.append((draw(st.sampled_from(BINARY)), -1))
    scales = draw(st.lists(st.sampled_from([1 / 8192, 1 / 4096, 1 / 2048, 1 / 1024, 3e-4]), min_size=n, max_size=n))
    shape = (1, draw(st.integers(5, 10)), draw(st.integers(4, 8)), draw(st.integers(5, 5)))
    return shape, ops, scales


@settings(max_examples=40, deadline=None)
@given(chain=chains(), seed=st.integers(0, 2**31))
def test_group_matches_tflm(chain, seed):
    shape, ops, scales = chain
    model = chain_model(shape, ops, scales)
    graph = parse_model(model)
    try:
        for op in graph.ops:
            prepare(graph, op)
    except ModelError:
        event("refused by prepare")
        return  # a scale ratio TFLite Micro cannot run either (covered by the single ops' tests)
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["INT16_GROUP"]
    assert program.plan.pool_bytes < compile_model(model, fuse=False).plan.pool_bytes
    assert_matches_tflm(model, [int16_values(np.random.default_rng(seed), shape)])


def fan_out_model(shape=(1, 6, 6, 8)) -> bytes:
    """LOGISTIC and TANH of the input, their sum times the input (elementwise16's head)."""
    return chain_model(shape, [("LOGISTIC", 0), ("TANH", 0), ("ADD", 0), ("MUL", -1)], [0, 0, 1 / 4096, 1 / 4096])


def test_fan_out_group_matches_tflm():
    """TANH reads LOGISTIC's output here (the chain's shape); each result lives in a block buffer."""
    model = fan_out_model()
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["INT16_GROUP"]
    assert program.steps[0].params.buffers >= 1
    assert_matches_tflm(model, [int16_values(np.random.default_rng(3), (1, 6, 6, 8))])


def _moved(program: Program, buffer: int, to: int) -> Program:
    offsets = dict(program.plan.offsets) | {buffer: to % program.plan.pool_bytes}
    return replace(program, plan=replace(program.plan, offsets=offsets))


def test_output_over_an_input_element_not_yet_read_is_a_hazard():
    """The group's output one element ahead of its input: output element 0 lands on input element 1,
    which the last member reads after it. The same plan with the output exactly on the input runs."""
    model = fan_out_model()
    program = compile_model(model)
    graph, step = program.graph, program.steps[0]
    x, y = graph.storage_of(step.inputs[0]), graph.storage_of(step.outputs[0])
    data = int16_values(np.random.default_rng(5), (1, 6, 6, 8))
    expected = Interpreter(program).run([data]).raw_outputs[0]
    same = Interpreter(_moved(program, y, program.plan.offsets[x])).run([data]).raw_outputs[0]
    assert np.array_equal(same, expected)
    with pytest.raises(HazardError, match="INT16_GROUP"):
        Interpreter(_moved(program, y, program.plan.offsets[x] + 2)).run([data])


def test_workspace_over_the_input_is_a_hazard():
    """Block buffers placed over the input's first block: the first member's store lands on input
    bytes still to be read."""
    program = compile_model(fan_out_model())
    step = program.steps[0]
    x = program.graph.storage_of(step.inputs[0])
    with pytest.raises(HazardError, match="block buffers"):
        Interpreter(_moved(program, workspace_id(step.index), program.plan.offsets[x])).run(
            [int16_values(np.random.default_rng(6), (1, 6, 6, 8))])


def test_a_saved_plan_makes_the_same_group():
    """plan.json names the group by its operators; the program rebuilt from it runs the same step."""
    import json

    from vmcu_tflite.pipeline import program_for_plan
    from vmcu_tflite.plan import load_plan

    model = fan_out_model()
    program = compile_model(model)
    again = program_for_plan(parse_model(model), load_plan(json.dumps(program.plan.to_json(program.graph))))
    assert [s.kernel for s in again.steps] == ["INT16_GROUP"]
    assert again.steps[0].params.members[-1].sources == program.steps[0].params.members[-1].sources
    data = int16_values(np.random.default_rng(8), (1, 6, 6, 8))
    first = Interpreter(program).run([data]).raw_outputs[0]
    assert np.array_equal(Interpreter(again).run([data]).raw_outputs[0], first)


def two_input_model(shape=(1, 5, 7, 3)) -> bytes:
    """A group of two external inputs over 105 elements (a partial last block): LOGISTIC of x, ADD of z
    with zero points (the general ADD path), RELU6 and LEAKY_RELU of that, then SUB of x again."""
    b = ModelBuilder()
    x = b.tensor(shape, "int16", scale=1 / 4096, zero_point=0)
    z = b.tensor(shape, "int16", scale=1 / 2048, zero_point=-5)
    s = b.tensor(shape, "int16", scale=SIGMOID_SCALE, zero_point=0)
    a = b.tensor(shape, "int16", scale=1 / 4096, zero_point=7)
    r = b.tensor(shape, "int16", scale=1 / 4096, zero_point=7)
    leaky = b.tensor(shape, "int16", scale=1 / 2048, zero_point=-3)
    out = b.tensor(shape, "int16", scale=1 / 1024, zero_point=0)
    b.inputs = [x, z]
    b.op("LOGISTIC", [x], [s])
    b.op("ADD", [s, z], [a], fused_activation_function=0)
    b.op("RELU6", [a], [r])
    b.op("LEAKY_RELU", [r], [leaky], alpha=-0.5)
    b.op("SUB", [leaky, x], [out], fused_activation_function=0)
    b.outputs = [out]
    return b.build()


def test_two_inputs_and_a_partial_block_match_tflm():
    model = two_input_model()
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["INT16_GROUP"] and len(program.steps[0].inputs) == 2
    rng = np.random.default_rng(4)
    assert_matches_tflm(model, [int16_values(rng, (1, 5, 7, 3)), int16_values(rng, (1, 5, 7, 3))])
