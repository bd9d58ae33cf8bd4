"""Streamed inputs and outputs end to end: plans with ports streamed through vmcu_validate's harness.

The harness serves each streamed input's rows from its baked-in array through read_row and
collects each streamed output's rows from write_row, checking the protocol (vmcu_tflite/validate/
harness.py); the outputs must be bit-exact with the reference interpreter and TFLite Micro, as
the whole-pool runs are (tests/c/test_models_c.py). Where a chain starts at a streamed input,
its generated kernel pulls the rows into its ring (vmcu_pull_row); elsewhere the runtime pulls
them whole into the pool before the step that reads it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.models_under_test import FIXTURES, REAL_MODELS
from vmcu_tflite.codegen.model_c import c_identifier
from vmcu_tflite.codegen.project import write_project
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import read_model
from vmcu_tflite.validate.harness import parse_run
from vmcu_tflite.validate.run import validate_program
from vmcu_tflite.validate.targets import HOST, SANITIZED_HOST

ROOT = Path(__file__).resolve().parents[2]
STREAM = 7  # VMCU_ERROR_STREAM

# (fixture, streamed inputs, streamed outputs): two outputs of which one streams (every port of
# every model streams in the test above, a model with state among them)
CASES = [("activations", [0], [1])]


@pytest.mark.parametrize("model", FIXTURES + [m for m in REAL_MODELS if m.stem == "mlperf-kws-dscnn"],
                         ids=lambda p: p.stem)
def test_every_model_streamed_is_bit_exact_on_the_sanitized_host(model, tmp_path, shared_plans):
    """Every input pulled and every output pushed row by row, through the generated C built with
    ASan and UBSan: the chains that pull rows into their rings among them. (The other shared
    models' streamed plans run bit-exact on every board in benchmarks/streaming.py; here they
    would double the file's time.)"""
    graph = read_model(model)
    program = compile_model(model, stream_inputs=range(len(graph.inputs)), stream_outputs=range(len(graph.outputs)))
    # against the reference interpreter, whose streamed runs tests/test_streaming.py holds to TFLite Micro
    result = validate_program(program, model.read_bytes(), SANITIZED_HOST, seed=3, work=tmp_path, compare_tflm=False)
    assert result.status == 0
    assert result.matches_reference
    pulled = [p for p in program.plan.streamed_io.inputs if p.in_ring]
    assert ("vmcu_pull_row(" in "".join(f.read_text() for f in (tmp_path / "model").glob("*_model.c"))) == bool(pulled)


@pytest.mark.parametrize("stem,inputs,outputs", CASES, ids=[c[0] for c in CASES])
def test_streamed_ports_are_bit_exact_on_the_sanitized_host(stem, inputs, outputs, tmp_path):
    model = ROOT / "models" / f"{stem}.tflite"
    program = compile_model(model, stream_inputs=inputs, stream_outputs=outputs)
    assert [p.index for p in program.plan.streamed_io.inputs] == inputs
    assert [p.index for p in program.plan.streamed_io.outputs] == outputs
    result = validate_program(program, model.read_bytes(), SANITIZED_HOST, seed=2, work=tmp_path)
    assert result.status == 0
    assert result.matches_reference and result.matches_tflm
    main = (tmp_path / "main.c").read_text()
    assert "vmcu_invoke_streamed(" in main and main.count("case ") == len(inputs) + 2 * len(outputs)


def test_the_harness_fails_a_run_that_breaks_the_protocol(tmp_path):
    """Rows of the wrong size (the header's row size changed under the harness): an error line,
    and the run's status is VMCU_ERROR_STREAM."""
    model = ROOT / "models" / "kws_like.tflite"
    program = compile_model(model, stream_inputs=[0], stream_outputs=[0])
    prefix = c_identifier(program.plan.model)
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    write_project(program, model_dir, prefix)
    header = model_dir / f"{prefix}_model.h"
    port = program.plan.streamed_io.outputs[0]
    text = header.read_text()
    wrong = f"#define {prefix.upper()}_OUTPUT0_ROW_BYTES {port.row_bytes - 1}u"
    header.write_text(text.replace(f"#define {prefix.upper()}_OUTPUT0_ROW_BYTES {port.row_bytes}u", wrong))
    assert wrong in header.read_text()
    inputs = [np.zeros(p.shape, np.int8).reshape(-1) for p in program.graph.inputs]
    printed = HOST.run(HOST.build(tmp_path, model_dir, prefix, inputs, 0))
    assert f"stream error: output 0 gave row 0 of {port.row_bytes} bytes" in printed
    assert parse_run(printed)[0] == STREAM


def test_the_harness_of_a_model_without_streamed_ports_is_unchanged(tmp_path):
    from vmcu_tflite.validate.harness import render_main
    main = render_main("m_model.h", "m", [np.zeros(4, np.int8)])
    assert "vmcu_invoke(&m_model, &memory, &failed_step)" in main
    assert "stream" not in main
