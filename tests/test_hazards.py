"""A wrong plan must fail loudly at the exact step, tensor, segment and pool address."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tests.models_under_test import conv_chain
from vmcu_reference.cli import main as run_main
from vmcu_reference.interpreter import Interpreter
from vmcu_reference.pool import Access, SimulatedPool
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.errors import EXIT_HAZARD, HazardError
from vmcu_tflite.pipeline import compile_model


def corrupt(program, tensor: int, offset: int):
    offsets = dict(program.plan.offsets)
    offsets[tensor] = offset
    return replace(program, plan=replace(program.plan, offsets=offsets))


def test_output_written_over_live_input_is_a_hazard():
    program = compile_model(conv_chain(), "tensor")
    step = program.steps[0]
    bad = corrupt(program, step.outputs[0], program.plan.offsets[step.inputs[0]] + 5)
    with pytest.raises(HazardError) as err:
        Interpreter(bad).run([np.zeros((1, 6, 6, 3), np.int8)])
    message = str(err.value)
    assert f"step 0 (CONV_2D, TFLite op 0): tensor {step.outputs[0]}" in message
    assert "segment 0 (byte 0)" in message
    assert f"pool address {program.plan.offsets[step.inputs[0]] + 5}" in message
    assert f"byte 5 of tensor {step.inputs[0]}" in message


def test_wrapping_plan_reads_modulo_pool_size():
    """Tensors placed across the end of the pool wrap to address 0 and read back intact."""
    program = compile_model(conv_chain(), "tensor")  # A[108 B] -> B[288 B] -> C[144 B]
    a, b, c = program.steps[0].inputs[0], program.steps[0].outputs[0], program.steps[1].outputs[0]
    x = np.arange(108, dtype=np.int64).astype(np.int8).reshape(1, 6, 6, 3)
    expected = Interpreter(program).run([x]).outputs[0]
    # B sits in the middle; A and then C (over A's freed bytes) wrap from 388 through 431 to 0..
    wrapped = replace(program, plan=replace(program.plan, pool_bytes=432, offsets={a: 388, b: 100, c: 388}))
    assert np.array_equal(Interpreter(wrapped).run([x]).outputs[0], expected)
    one_short = replace(wrapped, plan=replace(wrapped.plan, pool_bytes=431))
    with pytest.raises(HazardError, match="still to be read"):
        Interpreter(one_short).run([x])


def test_pool_load_checks_every_byte():
    pool = SimulatedPool(16)
    who = Access(step=3, kernel="ADD", ops=(7,), tensor=2, tensor_name="x", segment_bytes=4)
    pool.store(who, base=14, start=0, values=np.arange(8, dtype=np.int8))  # wraps: 14, 15, 0..5
    assert pool.load(who, 14, 0, 8).tolist() == list(range(8))
    pool.free(who, 14, 4, 4)
    with pytest.raises(HazardError, match=r"step 3 \(ADD, TFLite op 7\): tensor 2 'x' segment 1 \(byte 4\) "
                                          r"at pool address 2 was expected but the pool holds a free byte"):
        pool.load(who, 14, 0, 8)


def test_cli_reports_hazard_with_exit_code_4(tmp_path, capsys):
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain())
    assert run_tool("vmcu-convert", convert_main, [str(model), "-o", str(tmp_path / "out"), "--planner", "tensor"]) == 0
    plan_path = tmp_path / "out" / "plan.json"
    plan = json.loads(plan_path.read_text())
    step = plan["steps"][1]
    tensors = {t["index"]: t for t in plan["tensors"]}
    program = compile_model(conv_chain(), "tensor")
    reader, writer = program.steps[1].inputs[0], program.steps[1].outputs[0]
    tensors[writer]["offset"] = tensors[reader]["offset"]  # step 1 writes over the input it reads
    plan_path.write_text(json.dumps(plan))
    capsys.readouterr()
    code = run_tool("vmcu-run", run_main, [str(model), "--plan", str(plan_path)])
    err = capsys.readouterr().err
    assert code == EXIT_HAZARD
    assert err.startswith("vmcu-run: error: plan hazard: step 1 (CONV_2D") and err.count("\n") == 1, err
    assert step["kernel"] == "CONV_2D"


def test_trace_lists_every_checked_statement_of_a_kernel(tmp_path, capsys):
    """--trace names each memory statement of a kernel description it checked, with its instances."""
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain())
    assert run_tool("vmcu-run", run_main, [str(model), "--trace", "--no-fuse"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert any(" CONV_2D " in line and "RAMLoad of input0: " in line and "instances checked" in line
               for line in lines), lines
    assert any("RAMStore of output: " in line for line in lines), lines
