"""Models TFLite Micro runs and we do not: one line naming every missing feature, exit 2, nothing
written, and the advice to quantize only for a float model (the only kind it would help)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.tflite_builder import ModelBuilder
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main

ADVICE = "convert the model with full int8 quantization"


def refusal(tmp_path, capsys, data: bytes) -> str:
    """The one line `vmcu-convert` prints, without its prefix and the list of supported operators."""
    model, out = tmp_path / "model.tflite", tmp_path / "out"
    model.write_bytes(data)
    code = run_tool("vmcu-convert", convert_main, [str(model), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and captured.err.startswith("vmcu-convert: error: ") and captured.err.count("\n") == 1, captured
    assert not captured.out and not out.exists(), "nothing may be printed on stdout nor written on failure"
    return captured.err.removeprefix("vmcu-convert: error: ").rstrip("\n").split("; supported: ")[0]


def sixteen_by_eight(boundary: bool) -> bytes:
    """A 16x8 model whose HARD_SWISH has no int16 kernel (TFLite Micro has none either), with a float
    boundary or int16 I/O."""
    b = ModelBuilder()
    io = "float32" if boundary else "int16"
    x = b.tensor((1, 4, 4, 2), io, **({} if boundary else {"scale": 0.001}), name="x")
    x16 = b.tensor((1, 4, 4, 2), "int16", scale=0.001, name="x16") if boundary else x
    y16 = b.tensor((1, 4, 4, 2), "int16", scale=0.002, name="y16")
    y = b.tensor((1, 4, 4, 2), "float32", name="y") if boundary else y16
    if boundary:
        b.op("QUANTIZE", [x], [x16])
    b.op("HARD_SWISH", [x16], [y16])
    if boundary:
        b.op("DEQUANTIZE", [y16], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


@pytest.mark.parametrize("boundary", [False, True], ids=["int16 I/O", "float boundary"])
def test_a_16x8_model_is_not_told_to_quantize(boundary, tmp_path, capsys):
    line = refusal(tmp_path, capsys, sixteen_by_eight(boundary))
    # the float boundary's QUANTIZE and DEQUANTIZE have int16 kernels: only the operator without one is named
    expected = ("int16 activations are not supported yet by HARD_SWISH (tensor 1 'x16', index 1, and 1 more uses)"
                if boundary else
                "int16 activations are not supported yet by HARD_SWISH (tensor 0 'x', index 0, and 1 more uses)")
    assert line == expected


@pytest.mark.parametrize("kind", ["QUANTIZE", "DEQUANTIZE"])
def test_a_float_boundary_from_int16_without_a_scale(kind, tmp_path, capsys):
    """The int16 side of a boundary QUANTIZE or DEQUANTIZE without quantization (TFLite Micro's
    Prepare refuses it) is no I/O description: the op stays and refuses it (fuzzing: the input
    description read the missing zero point)."""
    b = ModelBuilder()
    x = b.tensor((1, 4), "float32" if kind == "QUANTIZE" else "int16", name="x")
    y = b.tensor((1, 4), "int16" if kind == "QUANTIZE" else "float32", name="y")
    b.op(kind, [x], [y])
    b.inputs, b.outputs = [x], [y]
    side = "output" if kind == "QUANTIZE" else "input"
    assert refusal(tmp_path, capsys, b.build()) == f"operator {kind} at index 0: the {side} needs a per-tensor scale"


def test_a_float_model_is_told_to_quantize(tmp_path, capsys):
    """The advice stays where it helps: float activations that full int8 quantization makes int8."""
    b = ModelBuilder()
    x, y, z = (b.tensor((1, 4), "float32", name=n) for n in "xyz")
    b.op("RELU", [x], [y])
    b.op("NEG", [y], [z])
    b.inputs, b.outputs = [x], [z]
    assert refusal(tmp_path, capsys, b.build()) == (
        f"unsupported operator NEG (op 1); float activations are not supported (tensor 0 'x', operator RELU at "
        f"index 0, and 1 more uses); {ADVICE}")


def detector(dequantize: bool) -> bytes:
    """int8 box and class heads into TFLite_Detection_PostProcess (directly, or through DEQUANTIZE),
    which writes float32 boxes, classes, scores and a count."""
    b = ModelBuilder()
    x = b.tensor((1, 10, 7), scale=0.1, name="x")
    heads = [b.tensor((1, 10, 4), scale=0.1, name="box_encodings"),
             b.tensor((1, 10, 3), scale=1 / 256, zero_point=-128, name="class_predictions")]
    b.op("SPLIT_V", [x, b.const(np.array([4, 3], np.int32)), b.const(np.array(2, np.int32))], heads, num_splits=2)
    if dequantize:
        floats = [b.tensor(b._tensors[t].shape, "float32", name=f"{b._tensors[t].name.decode()}_float")
                  for t in heads]
        for t, f in zip(heads, floats):
            b.op("DEQUANTIZE", [t], [f])
        heads = floats
    anchors = b.const(np.ones((10, 4), np.int8), scale=0.1)
    outputs = [b.tensor(shape, "float32", name=name) for shape, name in
               (((1, 5, 4), "boxes"), ((1, 5), "classes"), ((1, 5), "scores"), ((1,), "count"))]
    b.op("CUSTOM", [*heads, anchors], outputs, custom_code="TFLite_Detection_PostProcess")
    b.inputs, b.outputs = [x], outputs
    return b.build()


@pytest.mark.parametrize("dequantize", [False, True], ids=["int8 inputs", "dequantized inputs"])
def test_a_detectors_post_processing_is_named_not_its_float(dequantize, tmp_path, capsys):
    """Its float outputs (and the float inputs a DEQUANTIZE makes for it) are the operator's own types:
    the line names the custom operator and what it cannot run (int8 anchors, which TFLite Micro
    would read as floats), nothing about quantization."""
    line = refusal(tmp_path, capsys, detector(dequantize))
    assert line == (f"operator TFLite_Detection_PostProcess at index {3 if dequantize else 1}: the anchors must be "
                    f"a float32 constant [10, 4] (TFLite Micro reads them as floats)")


ONLY_INIT = ("; besides the main one only CALL_ONCE initialisation subgraphs that assign constants to variables are "
             "supported")


def resource_variables() -> bytes:
    """What TensorFlow exports for a tf.Variable updated at each run: CALL_ONCE runs subgraph 1,
    which initialises the variable; subgraph 0 reads it, multiplies and writes it back. Here the
    initial value is computed (NEG of a constant), which no kernel here runs or folds."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, name="x")
    handle = b.tensor((), "int32", name="handle")
    state = b.tensor((1, 4), scale=0.1, name="state")
    y = b.tensor((1, 4), scale=0.1, name="y")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], [handle], shared_name=b"state")
    b.op("READ_VARIABLE", [handle], [state])
    b.op("BATCH_MATMUL", [x, state], [y])
    b.op("ASSIGN_VARIABLE", [handle, y], [])
    b.inputs, b.outputs = [x], [y]
    b.next_subgraph()
    handle = b.tensor((), "int32", name="handle")
    b.op("VAR_HANDLE", [], [handle], shared_name=b"state")
    negated = b.tensor((1, 4), scale=0.1)
    b.op("NEG", [b.const(np.ones((1, 4), np.int8), scale=0.1)], [negated])
    b.op("ASSIGN_VARIABLE", [handle, negated], [])
    return b.build()


def test_a_second_subgraph_is_named_with_every_operator_it_needs(tmp_path, capsys):
    """An initialisation that computes is named with what it computes (the resource operators
    themselves are supported: tests/test_resource_variables.py)."""
    assert refusal(tmp_path, capsys, resource_variables()) == (
        "unsupported operator NEG (subgraph 1 op 1); the model has 2 subgraphs (subgraph 1: CALL_ONCE's "
        f"initialisation, which computes NEG at run time){ONLY_INIT}")


def control_flow(kind: str) -> bytes:
    """WHILE (condition: LESS on a counter, body: ADD) or IF (then: RELU, else: NEG)."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4), scale=0.1, name="x"), b.tensor((1, 4), scale=0.1, name="y")
    if kind == "WHILE":
        b.op("WHILE", [x], [y], cond_subgraph_index=1, body_subgraph_index=2)
    else:
        flag = b.tensor((1,), "bool", name="flag")
        b.op("IF", [flag, x], [y], then_subgraph_index=1, else_subgraph_index=2)
    b.inputs, b.outputs = [x] if kind == "WHILE" else [flag, x], [y]
    for body in (("LESS", "ADD") if kind == "WHILE" else ("RELU", "NEG")):
        b.next_subgraph()
        i = b.tensor((1, 4), scale=0.1)
        o = b.tensor((1, 4), "bool") if body == "LESS" else b.tensor((1, 4), scale=0.1)
        b.op(body, [i] * (2 if body in ("LESS", "ADD") else 1), [o])
        b.inputs, b.outputs = [i], [o]
    return b.build()


@pytest.mark.parametrize("kind, expected", [
    ("WHILE", "unsupported operators WHILE (op 0), LESS (subgraph 1 op 0); the model has 3 subgraphs (subgraph 1: "
              f"WHILE's condition, subgraph 2: WHILE's body){ONLY_INIT}"),
    ("IF", "unsupported operators IF (op 0), NEG (subgraph 2 op 0); the model has 3 subgraphs (subgraph 1: IF's then "
           f"branch, subgraph 2: IF's else branch){ONLY_INIT}")])
def test_control_flow_is_named_with_its_subgraphs(kind, expected, tmp_path, capsys):
    assert refusal(tmp_path, capsys, control_flow(kind)) == expected


def test_a_subgraph_no_operator_calls_is_still_named(tmp_path, capsys):
    """TFLite Micro prepares every subgraph, called or not: a second one is refused either way."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4), scale=0.1, name="x"), b.tensor((1, 4), scale=0.1, name="y")
    b.op("RELU", [x], [y])
    b.inputs, b.outputs = [x], [y]
    assert refusal(tmp_path, capsys, b.build(subgraphs=2)) == (
        f"the model has 2 subgraphs (subgraph 1: called by no operator){ONLY_INIT}")


def audio_front_end() -> bytes:
    """micro_speech's audio preprocessor in short: int16 samples through TFLite Micro's signal
    library (custom operators, with a SignalDelay, which is not supported here), then int32
    arithmetic (CAST, MUL, DIV, ADD, MAXIMUM) and CAST to int8."""
    b = ModelBuilder()
    audio = b.tensor((1, 480), "int16", name="audio")
    window = b.tensor((480,), "int16", name="window")
    b.op("CUSTOM", [audio, b.const(np.ones(480, np.int16))], [window], custom_code="SignalWindow")
    scaled, shift = b.tensor((480,), "int16"), b.tensor((), "int32")
    b.op("CUSTOM", [window], [scaled, shift], custom_code="SignalFftAutoScale")
    spectrum, energy = b.tensor((514,), "int16"), b.tensor((257,), "int32")
    b.op("CUSTOM", [scaled], [spectrum], custom_code="SignalRfft")
    b.op("CUSTOM", [spectrum], [energy], custom_code="SignalEnergy")
    log, delayed = b.tensor((40,), "int16", name="log"), b.tensor((40,), "int16", name="delayed")
    b.op("CUSTOM", [energy], [log], custom_code="SignalFilterBankLog")
    b.op("CUSTOM", [log], [delayed], custom_code="SignalDelay")
    wide, times, divided, offset, clamped = (b.tensor((40,), "int32", name=n)
                                             for n in ("wide", "times", "divided", "offset", "clamped"))
    b.op("CAST", [delayed], [wide])
    b.op("MUL", [wide, b.const(np.array([256], np.int32))], [times])
    b.op("DIV", [times, b.const(np.array([666], np.int32))], [divided])
    b.op("ADD", [divided, b.const(np.array([-128], np.int32))], [offset])
    b.op("MAXIMUM", [offset, b.const(np.array([-128], np.int32))], [clamped])
    features = b.tensor((40,), "int8", name="features")
    b.op("CAST", [clamped], [features])
    b.inputs, b.outputs = [audio], [features]
    return b.build()


def test_an_audio_front_end_names_its_custom_operators_and_int32_arithmetic(tmp_path, capsys):
    """The signal operators supported here pass; the others are named, and an int32 tensor where the
    operator that makes it declares another type (SignalEnergy writes uint32) is refused at its use."""
    assert refusal(tmp_path, capsys, audio_front_end()) == (
        "unsupported operator CUSTOM(SignalDelay) (op 5); "
        "int32 activations are not supported yet (tensor 6 't6', operator SignalEnergy at index 3, and 1 more uses)")


def test_the_console_script_prints_the_line_alone(tmp_path):
    """Through the installed entry point: exit 2, that one line on stderr, no -o folder."""
    model = tmp_path / "audio.tflite"
    model.write_bytes(audio_front_end())
    proc = subprocess.run([sys.executable, "-c", "import sys; from vmcu_tflite.cli.convert import entry; "
                           "sys.exit(entry())", str(model), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and not proc.stdout, proc
    assert proc.stderr.startswith("vmcu-convert: error: unsupported operator CUSTOM(SignalDelay) (op 5); ")
    assert proc.stderr.count("\n") == 1 and ADVICE not in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()


def test_each_operator_without_an_int16_kernel_is_named(tmp_path, capsys):
    """A 16x8 model's int16 activations reach two operators without int16 kernels (and a PAD, which
    has one): both kinds are named in model order, each with its first tensor and its further uses."""
    b = ModelBuilder()
    q = dict(scale=0.001, zero_point=0)
    x = b.tensor((2, 4), "int16", **q, name="x")
    padded = b.tensor((2, 6), "int16", **q, name="padded")
    normed = b.tensor((2, 6), "int16", **q, name="normed")
    y = b.tensor((2, 6), "int16", **q, name="y")
    b.op("PAD", [x, b.const(np.array([[0, 0], [1, 1]], np.int32))], [padded])
    b.op("L2_NORMALIZATION", [padded], [normed])
    b.op("HARD_SWISH", [normed], [y])
    b.inputs, b.outputs = [x], [y]
    assert refusal(tmp_path, capsys, b.build()) == (
        "int16 activations are not supported yet by L2_NORMALIZATION (tensor 1 'padded', index 1, and 1 more uses), "
        "HARD_SWISH (tensor 2 'normed', index 2, and 1 more uses)")
