"""Every kind of bad model exits 2 with one line naming the problem, never a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.tflite_builder import ModelBuilder, random_weights
from vmcu_tflite.cli.common import run_tool
from vmcu_tflite.cli.convert import main as convert_main
from vmcu_tflite.errors import ModelError
from vmcu_tflite.reader import parse_model


def conv_model(dtype: str = "int8", signature=None, op: str = "CONV_2D", subgraphs: int = 1) -> bytes:
    rng = np.random.default_rng(0)
    b = ModelBuilder()
    quant = {} if dtype == "float32" else {"scale": 0.05, "zero_point": 0}
    x = b.tensor((1, 6, 6, 2), dtype=dtype, shape_signature=signature, **quant)
    y = b.tensor((1, 6, 6, 3), dtype=dtype, **quant)
    if op == "CONV_2D":
        w = b.const(random_weights(rng, (3, 1, 1, 2)).astype(dtype if dtype == "float32" else "int8"),
                    **({} if dtype == "float32" else {"scale": 0.01, "zero_point": 0}))
        b.op("CONV_2D", [x, w, -1], [y], padding=0, stride_h=1, stride_w=1)
    else:
        y = b.tensor((1, 6, 6, 2), dtype=dtype, **quant)
        b.op(op, [x], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build(subgraphs=subgraphs)


def convert(tmp_path, data: bytes, capsys):
    model = tmp_path / "model.tflite"
    model.write_bytes(data)
    out = tmp_path / "out"
    code = run_tool("vmcu-convert", convert_main, [str(model), "-o", str(out)])
    err = capsys.readouterr().err
    return code, err, out


CASES = {
    "not tflite": (b"this is not a flatbuffer at all, just text" * 4, "not a TFLite model"),
    "truncated": (conv_model()[:150], "corrupt or truncated"),
    "two subgraphs": (conv_model(subgraphs=2), "2 subgraphs"),
    "float": (conv_model("float32"), "float activations are not supported"),
    "int16": (conv_model("int16", op="HARD_SWISH"), "int16 activations are not supported"),
    "unsupported op": (conv_model(op="NEG"), "unsupported operator NEG (op 0); supported: ABS, ADD,"),
    "dynamic shape": (conv_model(signature=(1, -1, 6, 2)), "dynamic shape"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_model_exits_2_with_one_line(case, tmp_path, capsys):
    data, expected = CASES[case]
    code, err, out = convert(tmp_path, data, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("vmcu-convert: error: "), err
    assert expected in err
    assert not out.exists(), "nothing may be written on failure"


def test_dynamic_batch_runs_at_the_stored_batch(tmp_path, capsys):
    code, err, out = convert(tmp_path, conv_model(signature=(-1, 6, 6, 2)), capsys)
    assert code == 0, err
    assert (out / "plan.json").exists()


def test_every_unsupported_operator_is_named_in_one_line(tmp_path, capsys):
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    t = [b.tensor((1, 4), scale=1 / 256, zero_point=-128) for _ in range(3)]
    b.op("NEG", [x], [t[0]])
    b.op("LOGISTIC", [t[0]], [t[1]])
    b.op("NEG", [t[1]], [t[2]])
    b.inputs, b.outputs = [x], [t[2]]
    code, err, _ = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1
    assert "unsupported operator NEG (ops 0, 2); supported: ABS, ADD," in err


def test_every_kind_of_blocker_is_named_in_one_line(tmp_path, capsys):
    """An unsupported operator, state kept between runs and int16 activations: all three at once."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    state = b.tensor((1, 4), scale=0.1, zero_point=0, variable=True, name="state")
    t = b.tensor((1, 4), scale=0.1, zero_point=0)
    wide = b.tensor((1, 4), dtype="int16", scale=0.1, zero_point=0, name="wide")
    y = b.tensor((1, 4), scale=0.1, zero_point=0)
    b.op("ADD", [x, state], [t])
    b.op("NEG", [t], [wide])
    b.op("L2_NORMALIZATION", [wide], [y])  # an operator without an int16 kernel
    b.inputs, b.outputs = [x], [y]
    code, err, _ = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert ("unsupported operator NEG (op 1); tensor 1 'state' is a variable (state kept between runs); not "
            "supported; int16 activations are not supported yet by L2_NORMALIZATION (tensor 3 'wide', index 2); "
            "supported: ABS, ADD,") in err


def test_state_of_a_refused_operator_is_covered_by_its_reason(tmp_path, capsys):
    """A refused recurrent op's variable (int16) state is covered by the op's refusal: named once."""
    b = ModelBuilder()
    x = b.tensor((1, 2, 4), scale=0.1, zero_point=0)
    state = b.tensor((1, 4), dtype="int16", scale=0.1, zero_point=0, variable=True)
    y = b.tensor((1, 2, 4), scale=0.1, zero_point=0)
    b.op("UNIDIRECTIONAL_SEQUENCE_RNN", [x, state], [y])
    b.inputs, b.outputs = [x], [y]
    code, err, _ = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert "error: unsupported operator UNIDIRECTIONAL_SEQUENCE_RNN (op 0); supported: ABS," in err
    assert "variable" not in err and "int16" not in err


def test_op_on_constants_only_is_refused(tmp_path, capsys):
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    c = b.const(np.ones((1, 4), np.int8), scale=0.1, zero_point=0)
    y = b.tensor((1, 4), scale=0.2, zero_point=0)
    z = b.tensor((1, 4), scale=0.2, zero_point=0)
    b.op("QUANTIZE", [c], [y])
    b.op("ADD", [x, y], [z])
    b.inputs, b.outputs = [x], [z]
    code, err, out = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.endswith("operator QUANTIZE at index 0 reads only constants, and folding QUANTIZE of these constants "
                        "is not supported\n")
    assert not out.exists()


def test_every_truncation_is_reported_cleanly(tmp_path, capsys):
    data = conv_model()
    for cut in range(8, len(data), 37):
        code, err, _ = convert(tmp_path, data[:cut], capsys)
        assert code == 2 and err.startswith("vmcu-convert: error: ") and err.count("\n") == 1, (cut, err)


def test_console_script_prints_no_traceback(tmp_path):
    model = tmp_path / "bad.tflite"
    model.write_bytes(b"\0" * 64)
    proc = subprocess.run([sys.executable, "-c", "import sys; from vmcu_tflite.cli.convert import entry; "
                           "sys.exit(entry())", str(model), "-o", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr


def test_an_operator_refused_for_a_reason_says_why(tmp_path, capsys):
    """A standalone RELU_N1_TO_1 is refused because TFLite Micro cannot run it, not because it is missing."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    y = b.tensor((1, 4), scale=0.1, zero_point=0)
    b.op("RELU_N1_TO_1", [x], [y])
    b.inputs, b.outputs = [x], [y]
    code, err, _ = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1
    assert "unsupported operator RELU_N1_TO_1 (op 0: TFLite Micro has no kernel for it" in err


def test_a_constant_output_of_another_type_is_refused(tmp_path, capsys):
    """A folded int32 output (a shape vector) cannot be written into the int8 pool: one line."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    y = b.tensor((1, 4), scale=0.1, zero_point=0)
    b.op("RELU", [x], [y])
    shape = b.tensor((2,), dtype="int32", name="shape")
    b.op("SHAPE", [x], [shape], out_type=2)
    b.inputs, b.outputs = [x], [y, shape]
    code, err, out = convert(tmp_path, b.build(), capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.endswith("graph output 1 (tensor 2 'shape') is a constant of type INT32; only int8 constant outputs "
                        "are supported\n")
    assert not out.exists()


def test_fields_strings_and_vectors_must_start_aligned_as_the_verifier_wants():
    """LiteRT verifies a model before loading it; its verifier refuses a field, string or vector
    that is not aligned (a corrupt offset the accessors would follow quietly)."""
    import struct

    from vmcu_tflite.flatbuffer_check import _CheckedTable

    def buffer(target: int) -> bytes:  # a uoffset at byte 0 to a string "" (length 0, then NUL) at `target`
        data = bytearray(16)
        struct.pack_into("<I", data, 0, target)
        struct.pack_into("<I", data, target, 0)
        return bytes(data)
    assert _CheckedTable(buffer(8), 0).String(0) == b""
    with pytest.raises(ValueError, match="not aligned"):
        _CheckedTable(buffer(9), 0).String(0)
    with pytest.raises(ValueError, match="not aligned"):
        _CheckedTable(buffer(9), 0).VectorLen(0)
    assert _CheckedTable(buffer(8), 0).VectorLen(0) == 0
    with pytest.raises(ValueError, match="field is not aligned"):  # the offset itself at an odd place
        _CheckedTable(buffer(8), 0).String(1)


def test_custom_options_with_unsorted_keys_are_refused():
    """A flexbuffer map's keys are sorted and TFLite Micro finds each by binary search: one renamed
    past the others ("nms_score_threshold" to "~ms_score_threshold", a fuzzed byte) makes it miss
    num_classes too and refuse the model, where reading the keys in order would accept it."""
    data = (Path(__file__).resolve().parent.parent / "models" / "ssd_postprocess.tflite").read_bytes()
    assert data.count(b"nms_score_threshold") == 1
    parse_model(data)
    with pytest.raises(ModelError, match="keys are not in sorted order"):
        parse_model(data.replace(b"nms_score_threshold", b"~ms_score_threshold"))
