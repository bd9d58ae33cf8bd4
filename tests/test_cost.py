"""The cost model (vmcu_tflite/cost.py): its terms count what the kernels do, and its predictions
match profiled runs.

- Every multiply-accumulate of a plan is counted in exactly one MAC term, every convolution's
  output value once, for every fixture, fused and not, both tunings.
- The prediction is the terms times the table's coefficients, and report.md prints it per step.
- On QEMU the predicted total of the keyword-spotting models is within 10% of the measured one on
  the Cortex-M4 (`dsp`) and the Cortex-M55 (`helium`), the heaviest step's too; the benchmark
  (benchmarks/cost_model.py, which fits the coefficients) checks every shared model.
"""
from __future__ import annotations

import shutil
from collections import Counter

import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_tflite import cost
from vmcu_tflite.layer_baseline import layer_baseline
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.report import render_report
from vmcu_tflite.validate.run import validate_program
from vmcu_tflite.validate.targets import QEMU_TOOLS, TARGETS

MAC_TERMS = tuple(t for t in cost.TERMS if t.endswith(" MAC"))
KWS = [m for m in REAL_MODELS if m.stem == "mlperf-kws-dscnn"]
HAVE_QEMU = all(shutil.which(tool) for tool in ("cmake", *QEMU_TOOLS))


@pytest.mark.parametrize("tuning", ["dsp", "helium"])
@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
@pytest.mark.parametrize("model", FIXTURES + KWS, ids=lambda m: m.stem)
def test_mac_terms_count_every_multiply_accumulate_once(model, fuse, tuning, shared_plans):
    program = compile_model(model, fuse=fuse, tuning=tuning)
    for step, terms in zip(program.plan.steps, cost.program_terms(program)):
        assert set(terms) <= set(cost.TERMS)
        assert terms["step"] == 1
        assert sum(terms[t] for t in MAC_TERMS) == step.macs, (step.index, step.kernel, dict(terms))
        if step.macs > terms["other MAC"]:  # a convolution-like loop requantizes what it sums
            assert terms["output value"] > 0


def test_prediction_is_the_terms_times_the_coefficients():
    table = {"step": 100.0, "pointwise MAC": 1.5, "output value": 10.0}
    assert cost.predict(Counter({"step": 1, "pointwise MAC": 1000, "output value": 40, "element": 7}), table) == 100 + 1_500 + 400


def test_report_prints_each_steps_prediction():
    program = compile_model(next(m for m in FIXTURES if m.stem == "kws_like"))
    predicted = cost.predicted_steps(program)
    assert all(p > 0 for p in predicted)
    report = render_report(program, layer_baseline(program), None)
    assert f"about {sum(predicted):,} instructions on a Cortex-M4" in report
    for step, instructions in zip(program.plan.steps, predicted):
        assert any(line.startswith(f"| {step.index} | {step.kernel} |") and line.endswith(f"| {instructions:,} |")
                   for line in report.splitlines()), step.index


@pytest.mark.skipif(not HAVE_QEMU, reason="arm-none-eabi-gcc, qemu-system-arm or cmake missing")
@pytest.mark.parametrize("model", [next(m for m in FIXTURES if m.stem == "kws_like")] + KWS, ids=lambda m: m.stem)
@pytest.mark.parametrize("tuning, target", [("dsp", "qemu-cortex-m4"), ("helium", "qemu-cortex-m55")])
def test_predicted_total_within_ten_percent_of_the_run(model, tuning, target, tmp_path, shared_plans):
    """The keyword-spotting models (the fixture, and the shared model where present) on each
    tuning's reference core: the predicted total within 10% of the measured one, and the heaviest
    step's prediction within 10% of its profiled count."""
    program = compile_model(model, tuning=tuning)
    result = validate_program(program, model.read_bytes(), TARGETS[target], seed=0, work=tmp_path, profile=True)
    assert result.status == 0 and result.matches_reference
    predicted = cost.predicted_steps(program)
    measured = result.measurements["instructions"]
    assert abs(sum(predicted) / measured - 1) <= 0.10, (sum(predicted), measured)
    heavy = max(range(len(predicted)), key=lambda i: result.step_instructions[i])
    assert abs(predicted[heavy] / result.step_instructions[heavy] - 1) <= 0.10, (predicted, result.step_instructions)
