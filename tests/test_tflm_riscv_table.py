"""benchmarks/cores.py sets our RISC-V figures beside TFLite Micro's reference kernels from the JSON that
benchmarks/tflm_riscv/run_tflm.py writes; the suite never builds TFLM, so the reader is checked on made-up
records."""
from __future__ import annotations

import json

from benchmarks.cores import riscv_lines, riscv_rows, tflm_riscv

OURS = {"a": {"qemu-riscv32": {"instructions": 1_000}}, "b": {"qemu-riscv32": {"instructions": 300}},
        "c": {"qemu-riscv32": "does not fit"}, "d": {"qemu-cortex-m4": {"instructions": 5}}}
ANCHOR = {"tflm_commit": "90b983c2b3f1", "compiler": "gcc 12", "models": {
    "a": {"instructions": 4_000, "outputs_match_tflite_micro_python": True},
    "b": {"instructions": 500, "error": "build failed\nregion `RAM' overflowed"},
    "c": {"instructions": 9, "outputs_match_tflite_micro_python": True}}}


def test_each_model_measured_on_both_sides_gets_a_ratio_and_a_failed_run_its_reason():
    rows = riscv_rows(OURS, ANCHOR)
    assert rows[2] == "| a | 1,000 | 4,000 | 0.25x | 2,000 |"
    assert rows[3] == "| b | 300 | not measured: region `RAM' overflowed | | |"
    assert len(rows) == 4  # c does not fit our board, d has no RISC-V run


def test_no_record_or_no_riscv_run_leaves_the_table_out(tmp_path):
    assert tflm_riscv(tmp_path / "absent.json") == {}
    assert riscv_lines(OURS, {}) == []
    assert riscv_lines({"d": OURS["d"]}, ANCHOR) == []
    (tmp_path / "r.json").write_text(json.dumps(ANCHOR))
    lines = riscv_lines(OURS, tflm_riscv(tmp_path / "r.json"))
    assert "TFLM 90b983c2 " in lines[1] and lines[-2].startswith("| a |")
