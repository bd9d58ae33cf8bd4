"""The planner's int16 element-wise groups (`vmcu_tflite/grouping.py`): which runs of steps group,
and that a group is kept only where the pool gets smaller, never for int8 steps."""
from __future__ import annotations

from pathlib import Path

from tests.ops.test_op_int16_group import chain_model
from vmcu_tflite.grouping import group_runs
from vmcu_tflite.passes import simplify
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import parse_model
from vmcu_tflite.steps import build_steps

MODELS = Path(__file__).resolve().parents[2] / "models"


def test_planner_groups_where_the_pool_shrinks():
    """elementwise16: the ten steps before the broadcast MUL are one group (a constant operand is not a
    member, nor is SOFTMAX); a chain that never reads its input again streams in place already, and
    grouping it would only add the workspace: it stays apart."""
    fixture = MODELS / "elementwise16.tflite"
    graph = simplify(parse_model(fixture.read_bytes()))
    assert group_runs(graph, build_steps(graph)) == [tuple(range(10))]
    program = compile_model(fixture.read_bytes())
    assert [s.kernel for s in program.steps] == ["INT16_GROUP", "INT16_BINARY", "INT16_SOFTMAX"]
    assert program.plan.pool_bytes <= 1440  # TFLite Micro's arena head is 2,880
    [choice] = program.plan.fusion
    assert choice.label == "group" and choice.fused and choice.fused_bytes < choice.unfused_bytes
    linear = chain_model((1, 6, 6, 8), [("RELU", 0), ("LOGISTIC", 0), ("TANH", 0)], [1 / 4096] * 3)
    assert all(s.kernel != "INT16_GROUP" for s in compile_model(linear).steps)


def test_int8_models_are_never_grouped():
    """The int8 element-wise kinds are no members: the int8 `elementwise` fixture's steps stay."""
    fixture = MODELS / "elementwise.tflite"
    graph = simplify(parse_model(fixture.read_bytes()))
    assert group_runs(graph, build_steps(graph)) == []
