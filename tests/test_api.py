"""The public Python API (`import vmcu_tflite`), used only through what it exports."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import vmcu_tflite

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"


def test_bytes_in_arrays_out_compared_written_and_built(tmp_path):
    program = vmcu_tflite.convert((MODELS / "conv_stack.tflite").read_bytes())
    assert program.pool_bytes > 0 and program.macs > 0 and program.scratch_bytes >= 1
    assert [s.index for s in program.steps] == list(range(len(program.steps)))
    assert program.inputs[0].shape == (1, 16, 16, 3) and program.inputs[0].dtype == "int8"
    x = program.random_inputs(seed=1)
    outputs = program.run(x, compare_tflm=True)
    assert outputs[0].shape == program.outputs[0].shape and outputs[0].dtype == np.int8
    by_name = program.run({program.inputs[0].name: x[0]})
    assert np.array_equal(by_name[0], outputs[0])

    written = program.write(tmp_path / "out")
    assert all(path.exists() for path in written)
    assert json.loads((tmp_path / "out" / "plan.json").read_text()) == program.plan
    assert (tmp_path / "out" / "report.md").read_text() == program.report()

    result = program.validate("host", seed=1)
    assert result.bit_exact and result.matches_tflm is not False
    assert np.array_equal(result.outputs[0], outputs[0].reshape(-1))


def test_a_path_or_an_open_file_names_the_model():
    with open(MODELS / "kws_like.tflite", "rb") as file:
        from_file = vmcu_tflite.convert(file)
    from_path = vmcu_tflite.convert(MODELS / "kws_like.tflite", fuse=False)
    assert from_file.name == from_path.name == "kws_like"
    assert from_path.pool_bytes >= from_file.pool_bytes  # chains only ever lower the pool
    assert from_file.plan["planner"] == "vmcu"


def test_errors_carry_the_tools_messages_and_exit_codes():
    with pytest.raises(vmcu_tflite.ModelError, match="not a TFLite model") as bad:
        vmcu_tflite.convert(b"not a model at all")
    assert bad.value.exit_code == 2 and isinstance(bad.value, vmcu_tflite.VmcuError)
    with pytest.raises(vmcu_tflite.BudgetError, match="more than the budget of 100") as over:
        vmcu_tflite.convert(MODELS / "conv_stack.tflite", ram_budget=100)
    assert over.value.exit_code == 3
    assert vmcu_tflite.HazardError.exit_code == 4 and vmcu_tflite.MismatchError.exit_code == 1
    assert issubclass(vmcu_tflite.DivergenceError, vmcu_tflite.MismatchError)


def test_notebooks_show_tables():
    program = vmcu_tflite.convert(MODELS / "fc_batch.tflite")
    text = program._repr_markdown_()
    assert f"pool {program.pool_bytes:,} bytes" in text and text.count("| FULLY_CONNECTED |") == 3
    assert program.plot().axes  # a matplotlib Figure


def test_the_public_api_is_what_all_exports():
    assert set(vmcu_tflite.__all__) == {"convert", "Program", "TensorInfo", "StepInfo", "Validation", "VmcuError",
                                        "ModelError", "UsageError", "BudgetError", "HazardError", "MismatchError",
                                        "DivergenceError", "__version__"}
    for name in vmcu_tflite.__all__:
        value = getattr(vmcu_tflite, name)
        assert name == "__version__" or (value.__doc__ or "").strip(), name
    assert re.fullmatch(r"\d+\.\d+\.\d+", vmcu_tflite.__version__)


def _readme_example() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Python API"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    (tmp_path / "models").symlink_to(MODELS)
    monkeypatch.chdir(tmp_path)
    exec(compile(_readme_example(), "README.md", "exec"), {})
    assert (tmp_path / "out" / "kws_like" / "plan.json").is_file()


@pytest.mark.parametrize("model", ["kws_like", "depthwise_block", "conv_stack"])
def test_a_fused_chain_is_held_against_its_layers_apart(model):
    """report() (report.md) and plot() (memory.png) compare each step with what its layers hold at
    whole-tensor level, so no chain looks as if fusion cost RAM."""
    program = vmcu_tflite.convert(MODELS / f"{model}.tflite")
    rows = [line.split("|")[1:-1] for line in program.report().splitlines() if "| LAYER_CHAIN |" in line]
    assert rows
    for row in rows:
        ours, layers = (int(cell.strip().replace(",", "")) for cell in row[-2:])
        assert ours < layers, row
    assert "whole-tensor plan of these steps" not in program.report()
    drawn = {line.get_label(): line.get_ydata() for line in program.plot().axes[0].get_lines()}
    chain = [s.index for s in program.steps if s.kernel == "LAYER_CHAIN"][0]
    assert drawn["vmcu plan"][chain] < drawn["its layers at whole-tensor level"][chain]
