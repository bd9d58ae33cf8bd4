"""vmcu-convert's outputs and its RAM budget check, per the interface contract."""
from __future__ import annotations

import json

from tests.models_under_test import conv_chain
from vmcu_tflite.cli.common import parse_bytes, run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.errors import EXIT_DOES_NOT_FIT

STEP_FIELDS = {"index", "kernel", "ops", "segment_bytes", "gap_segments", "footprint_bytes", "macs"}


def convert(tmp_path, capsys, *extra):
    model = tmp_path / "chain.tflite"
    model.write_bytes(conv_chain(channels=(3, 8, 16, 4), hw=9))
    out = tmp_path / "out"
    code = run_tool("vmcu-convert", convert_main, [str(model), "-o", str(out), *extra])
    return code, capsys.readouterr(), out


def test_writes_plan_report_and_plot(tmp_path, capsys):
    code, _, out = convert(tmp_path, capsys)
    assert code == 0
    plan = json.loads((out / "plan.json").read_text())
    assert {"model", "planner", "pool_bytes", "macs", "tensor_level_bytes", "steps"} <= set(plan)
    assert plan["planner"] == "vmcu" and plan["model"] == "chain"
    assert plan["pool_bytes"] < plan["tensor_level_bytes"]
    assert plan["macs"] == 9 * 9 * (3 * 8 + 8 * 16 + 16 * 4) == sum(s["macs"] for s in plan["steps"])
    assert all(STEP_FIELDS <= set(s) for s in plan["steps"])
    assert [op for s in plan["steps"] for op in s["ops"]] == [0, 1, 2]  # every op once, in order, fused or not
    report = (out / "report.md").read_text()
    assert f"{plan['pool_bytes']:,}" in report and f"{plan['tensor_level_bytes']:,}" in report
    assert (out / "memory.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_budget_too_small_exits_3_and_writes_nothing(tmp_path, capsys):
    code, _, out = convert(tmp_path, capsys)
    needed = json.loads((out / "plan.json").read_text())["pool_bytes"]
    (tmp_path / "again").mkdir()
    code, streams, out = convert(tmp_path / "again", capsys, "--ram-budget", str(needed - 1))
    assert code == EXIT_DOES_NOT_FIT
    assert f"needs {needed} bytes of pool, 1 more than the budget of {needed - 1}" in streams.err
    assert not out.exists()
    code, _, _ = convert(tmp_path / "again", capsys, "--ram-budget", str(needed))
    assert code == 0


def test_byte_counts_parse_with_units():
    assert parse_bytes("131072") == parse_bytes("128K") == parse_bytes("128KB") == 131072
    assert parse_bytes("1M") == 1 << 20
