"""The reader takes what the TFLite schema makes optional, and refuses values it does not define.

A converter or a hand-built file may leave out tensor names, shape signatures, the model's
description, metadata or subgraph name: such a model is valid, and must plan and run exactly as
the same model with them. An enum value outside the schema is refused in one line, exit 2.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model
from vmcu_reference.cli import main as run_main

schema = pytest.importorskip("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
from tests.tflite_builder import pack, unpack  # noqa: E402  (after the skip: it needs the schema too)
MODELS = Path(__file__).resolve().parent.parent / "models"


def mutated(fixture: str, change) -> bytes:
    """`fixture` with `change(model)` applied through the schema's object API."""
    model = unpack((MODELS / f"{fixture}.tflite").read_bytes())
    change(model)
    return pack(model)


def _each_tensor(field: str, value):
    return lambda model: [setattr(t, field, value) for t in model.subgraphs[0].tensors]


def _no_description(model) -> None:
    model.description, model.metadata, model.signatureDefs, model.subgraphs[0].name = None, None, None, None


ABSENT = [("tensor names", _each_tensor("name", None)), ("shape signatures", _each_tensor("shapeSignature", None)),
          ("description, metadata, signatures, subgraph name", _no_description)]


@pytest.mark.parametrize("what, change", ABSENT, ids=[a[0] for a in ABSENT])
@pytest.mark.parametrize("fixture", ["conv_stack", "kws_like"])
def test_a_model_without_optional_fields_runs_as_with_them(fixture, what, change, tmp_path, capsys):
    path = tmp_path / f"{fixture}.tflite"
    path.write_bytes(mutated(fixture, change))
    assert compile_model(path).plan.pool_bytes == compile_model(MODELS / f"{fixture}.tflite").plan.pool_bytes
    assert run_tool("vmcu-run", run_main, [str(path), "--compare-tflm"]) == 0, capsys.readouterr().err
    assert "bit-exact with TFLite Micro" in capsys.readouterr().out


def _first_opcode(**fields):
    def change(model):
        for name, value in fields.items():
            setattr(model.operatorCodes[0], name, value)
    return change


UNDEFINED = [
    ("tensor type 99", _each_tensor("type", 99), "has type 99, which the TFLite schema does not define"),
    ("builtin operator 250", _first_opcode(builtinCode=250, deprecatedBuiltinCode=127),
     "unsupported operator BUILTIN_250"),
    ("custom operator without its code", _first_opcode(builtinCode=32, deprecatedBuiltinCode=32, customCode=None),
     "unsupported operator CUSTOM()"),
]


@pytest.mark.parametrize("what, change, message", UNDEFINED, ids=[u[0] for u in UNDEFINED])
def test_values_outside_the_schema_are_refused_in_one_line(what, change, message, tmp_path, capsys):
    path = tmp_path / "model.tflite"
    path.write_bytes(mutated("conv_stack", change))
    with pytest.raises(ModelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compile_model(path)
    assert run_tool("vmcu-convert", convert_main, [str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and not (tmp_path / "out").exists()
