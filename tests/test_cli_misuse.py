"""A misused command line: exit 2, one line on stderr, before any work, nothing written."""
from __future__ import annotations

import numpy as np
import pytest

from reference.cli import main as run_main
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.cli.validate import main as validate_main

MODEL = "models/squeeze.tflite"
TOOLS = {"vmcu-convert": convert_main, "vmcu-run": run_main, "vmcu-validate": validate_main}


def misuse(tmp_path):
    """(tool, arguments, what the line must say) for every misuse we know of."""
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder")
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, input_0=np.zeros((1, 1, 1, 4), np.int8))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(inputs.read_bytes()[:100])
    out = str(tmp_path / "out")
    return [
        ("vmcu-convert", [MODEL, "-o", str(a_file)], "is a file, not a folder"),
        ("vmcu-convert", [MODEL, "-o", str(a_file / "below")], "is a file, not a folder"),
        ("vmcu-convert", [MODEL], "required: -o/--output"),
        *(("vmcu-convert", [MODEL, "-o", out, "--ram-budget", value], "not a byte count")
          for value in ("inf", "1e309", "-1", "0.5", "abc", "12Q")),
        ("vmcu-convert", [MODEL, "-o", out, "--planner", "magic"], "invalid choice"),
        ("vmcu-validate", [MODEL, "--keep", str(a_file)], "is a file, not a folder"),
        ("vmcu-validate", [MODEL, "--seed", "-1"], "not a seed"),
        ("vmcu-validate", [MODEL, "--target", "cortex-a53"], "invalid choice"),
        ("vmcu-validate", [MODEL, "--stream-input", "1"], "no input 1 to stream"),
        ("vmcu-validate", [MODEL, "--stream-output", "0,x"], "not a list of indices"),
        ("vmcu-run", [MODEL, "--seed", "-1"], "not a seed"),
        ("vmcu-run", [MODEL, "--seed", "x"], "not a seed"),
        ("vmcu-run", [MODEL, "--inputs", str(truncated)], "cannot read inputs"),
        ("vmcu-run", [MODEL, "--outputs", str(a_file / "x.npz")], "does not exist or is not writable"),
        ("vmcu-run", [MODEL, "--outputs", str(tmp_path)], "is a folder, not a file"),
        ("vmcu-run", [MODEL, "--no-such-flag"], "unrecognized arguments"),
        ("vmcu-run", [MODEL, "--target", "cortex-m55", "--plan", str(a_file)], "a --plan holds the tuning"),
    ]


def test_each_misuse_exits_2_with_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parent.parent)
    for tool, args, expected in misuse(tmp_path):
        code = run_tool(tool, TOOLS[tool], args)
        captured = capsys.readouterr()
        assert code == 2, (tool, args, captured.err)
        assert captured.err.startswith(f"{tool}: error: ") and captured.err.count("\n") == 1, (args, captured.err)
        assert expected in captured.err, (args, captured.err)
        assert not captured.out, (args, captured.out)
        assert not (tmp_path / "out").exists(), args


@pytest.mark.parametrize("value,expected", [("131072", 131072), ("128K", 131072), ("1.5K", 1536), ("0", 0),
                                            ("1MiB", 1 << 20)])
def test_byte_counts_that_are_whole(value, expected):
    from vmcu_tflite.cli.common import parse_bytes
    assert parse_bytes(value) == expected


def test_a_build_that_fails_says_the_compilers_first_error_in_one_line(tmp_path, capsys, monkeypatch):
    """A C build that fails (here a header the flags name and nobody has) reports the compiler's first
    error on its one line, and keeps the whole output as build.log in the build folder."""
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parent.parent)
    monkeypatch.setenv("CFLAGS", "-include vmcu_no_such_header.h")
    monkeypatch.delenv("VMCU_RUNTIME_CACHE", raising=False)  # the runtime built with the rest, in --keep's folder
    keep = tmp_path / "keep"
    code = run_tool("vmcu-validate", validate_main, [MODEL, "--target", "host", "--keep", str(keep)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "\\n" not in err, err
    assert "building for host failed: " in err and "vmcu_no_such_header.h" in err and "error" in err, err
    logs = list(keep.rglob("build.log"))
    assert len(logs) == 1 and "vmcu_no_such_header.h" in logs[0].read_text()
