"""Each rule of vmcu_tflite/model_rules.py refuses what it says, with one line naming the culprit."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.tflite_builder import ModelBuilder, pack, random_weights, schema, unpack
from vmcu_tflite.errors import ModelError
from vmcu_tflite.oracle import OracleError, run_tflm
from vmcu_tflite.reader import parse_model


def chain(mutate=None, **options) -> bytes:
    """input -> CONV_2D 1x1 -> output, then `mutate(builder, tensors)` breaks something."""
    rng = np.random.default_rng(0)
    b = ModelBuilder()
    x = b.tensor((1, 4, 4, 2), scale=0.05, zero_point=1, name="x")
    w = b.const(random_weights(rng, (3, 1, 1, 2)), scale=0.01, zero_point=0)
    y = b.tensor((1, 4, 4, 3), scale=0.1, zero_point=-2, name="y")
    conv = dict(padding=0, stride_h=1, stride_w=1) | options
    ports = {"x": x, "w": w, "y": y, "conv": conv}
    if mutate is not None:
        mutate(b, ports)
    b.op("CONV_2D", [ports["x"], ports["w"], -1], [ports["y"]], **ports["conv"])
    b.inputs, b.outputs = [ports["x"]], [ports["y"]]
    return b.build()


def refused(data: bytes) -> str:
    with pytest.raises(ModelError) as caught:
        parse_model(data)
    message = str(caught.value)
    assert "\n" not in message and message.isprintable(), message
    return message


def test_the_unbroken_chain_is_accepted():
    graph = parse_model(chain())
    assert [op.kind for op in graph.ops] == ["CONV_2D"]


def _reads_own_output(b, p):
    t = b.tensor((1, 4, 4, 2), scale=0.05, zero_point=1)
    b.op("ADD", [p["x"], t], [t])


def _second_writer(b, p):
    b.op("ADD", [p["x"], p["x"]], [p["y"]])


def _out_of_order(b, p):
    later = b.tensor((1, 4, 4, 2), scale=0.05, zero_point=1)
    b.op("ADD", [later, later], [b.tensor((1, 4, 4, 2), scale=0.05, zero_point=1)])
    b.op("ADD", [p["x"], p["x"]], [later])


def _zero_batch(b, p):
    p["x"] = b.tensor((0, 4, 4, 2), scale=0.05, zero_point=1)


def _huge(b, p):
    p["x"] = b.tensor((1, 4096, 4096, 2), scale=0.05, zero_point=1)


def _nan_scale(b, p):
    p["y"] = b.tensor((1, 4, 4, 3), scale=math.nan, zero_point=0)


def _negative_scale(b, p):
    p["y"] = b.tensor((1, 4, 4, 3), scale=-0.1, zero_point=0)


def _zero_point(b, p):
    p["y"] = b.tensor((1, 4, 4, 3), scale=0.1, zero_point=300)


def _channel_scales(b, p):
    p["w"] = b.const(random_weights(np.random.default_rng(1), (3, 1, 1, 2)), scale=[0.01, 0.02], zero_point=0)


def _int16_channel_scales(b, p):  # an int16 conv's output with a scale per channel (kernels read one)
    p["x"] = b.tensor((1, 4, 4, 2), "int16", scale=0.05, zero_point=0)
    p["y"] = b.tensor((1, 4, 4, 3), "int16", scale=[0.1, 0.2, 0.3], zero_point=[0, 0, 0], axis=3)


def _tiny_output_scale(b, p):
    p["y"] = b.tensor((1, 4, 4, 3), scale=1e-30, zero_point=0)


RULES = {
    "reads its own output": (_reads_own_output, {}, "reads its own output"),
    "two writers": (_second_writer, {}, "is written by operators"),
    "out of order": (_out_of_order, {}, "no earlier operator writes"),
    "zero batch": (_zero_batch, {}, "every dimension must be at least 1"),
    "huge tensor": (_huge, {}, "MiB, far beyond"),
    "NaN scale": (_nan_scale, {}, "scales must be finite"),
    "negative activation scale": (_negative_scale, {}, "an activation's scale must be positive"),
    "zero point": (_zero_point, {}, "zero point 300, outside int8"),
    "channel scales": (_channel_scales, {}, "2 scales along dimension 0"),
    "int16 channel scales": (_int16_channel_scales, {}, "is an int16 activation with 3 scales (per-tensor only)"),
    "stride 0": (None, {"stride_h": 0}, "stride_h 0 is outside 1 to 32767"),
    "dilation 2^20": (None, {"dilation_w_factor": 1 << 20}, "dilation_w_factor 1048576 is outside"),
    "padding enum": (None, {"padding": 5}, "padding 5 is neither SAME"),
    "activation enum": (None, {"fused_activation_function": 4}, "fused activation 4 is not supported"),
    "bias type": (None, {"quantized_bias_type": 9}, "quantized bias type 9"),
    "left shift": (_tiny_output_scale, {}, "needs a left shift of"),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_refuses_with_one_line(rule):
    mutate, options, expected = RULES[rule]
    data = chain(mutate, **options)
    if rule == "left shift":  # a per-op rule: the conv's Prepare applies it
        from vmcu_tflite.pipeline import compile_model
        with pytest.raises(ModelError, match=expected):
            compile_model(data)
        return
    assert expected in refused(data)


def one_op(kind: str, inputs, out_shape=(1, 4), outputs=None) -> bytes:
    """x [1, 4] -> `kind` -> y; `inputs` and `outputs` name x, y or -1."""
    b = ModelBuilder()
    ports = {"x": b.tensor((1, 4), scale=0.1, zero_point=0), "y": b.tensor(out_shape, scale=0.1, zero_point=0), "-1": -1}
    b.op(kind, [ports[name] for name in inputs], [ports["y"]])
    b.inputs, b.outputs = [ports["x"]], [ports[name] for name in outputs or ["y"]]
    return b.build()


def test_arity_and_omitted_inputs():
    assert "has 3 inputs and 1 outputs; TFLite defines 2 inputs" in refused(one_op("ADD", ["x", "x", "x"]))
    assert "input 1 is omitted (-1) but not optional" in refused(one_op("ADD", ["x", "-1"]))


def test_a_reshape_keeps_its_bytes():
    assert "turns int8[1, 4] into int8[1, 8]" in refused(one_op("RESHAPE", ["x"], out_shape=(1, 8)))


def test_an_output_that_no_operator_writes():
    message = refused(one_op("ADD", ["x", "x"], outputs=["y", "x"]))
    assert "graph output tensor 0 't0' is never written by an operator" in message


def test_names_are_escaped():
    def rename(b, p):
        p["y"] = b.tensor((1, 4, 4, 3), scale=math.nan, zero_point=0, name="evil\nname\x1b[31m")

    message = refused(chain(rename))
    assert "evil\\nname\\x1b[31m" in message


def test_a_convolution_without_its_options_is_refused():
    data = chain()
    model = unpack(data)
    model.subgraphs[0].operators[0].builtinOptionsType = schema.BuiltinOptions.AddOptions
    model.subgraphs[0].operators[0].builtinOptions = schema.AddOptionsT()
    assert "has no Conv2DOptions" in refused(pack(model))


def test_builtin_code_is_read_as_tflite_reads_it():
    """builtin_code 59 (NEG) with the deprecated byte still saying LOGISTIC is NEG, as in TFLite."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.1, zero_point=0)
    y = b.tensor((1, 4), scale=1 / 256, zero_point=-128)
    b.op("LOGISTIC", [x], [y])
    b.inputs, b.outputs = [x], [y]
    model = unpack(b.build())
    model.operatorCodes[0].builtinCode = schema.BuiltinOperator.NEG
    assert "unsupported operator NEG (op 0)" in refused(pack(model))


def test_corruption_in_a_field_the_converter_does_not_use_is_found():
    """The model's description string: its offset now points far past the end of the file."""
    import tflite
    data = bytearray(chain())
    model = tflite.Model.GetRootAsModel(bytes(data), 0)
    at = model._tab.Pos + model._tab.Offset(10)  # field 3 of Model: description
    data[at:at + 4] = (1 << 30).to_bytes(4, "little")
    assert "corrupt or truncated" in refused(bytes(data))


def test_a_model_tflite_micro_refuses_is_a_one_line_oracle_error():
    """The oracle runs in a child: TFLite Micro's refusal (here a SQUEEZE that changes the byte
    count, which our rules refuse earlier) comes back as its own reason, not a crash."""
    b = ModelBuilder()
    x = b.tensor((1, 1, 1, 4), scale=0.1, zero_point=0)
    y = b.tensor((1, 8), scale=0.1, zero_point=0)
    b.op("SQUEEZE", [x], [y])
    b.inputs, b.outputs = [x], [y]
    with pytest.raises(OracleError, match="TFLite Micro refuses this model: .*squeeze") as caught:
        run_tflm(b.build(), [np.zeros((1, 1, 1, 4), np.int8)], 1)
    assert "\n" not in str(caught.value)


def test_a_string_longer_than_the_file_is_found():
    """A tensor name whose length runs past the end: flatbuffers' accessors would slice it short."""
    import tflite
    data = bytearray(chain())
    tensor = tflite.Model.GetRootAsModel(bytes(data), 0).Subgraphs(0).Tensors(0)
    name = tensor._tab.Pos + tensor._tab.Offset(8)  # field 2 of Tensor: name
    at = name + int.from_bytes(data[name:name + 4], "little")
    data[at + 3] = 0x40  # the length's high byte
    assert "corrupt or truncated" in refused(bytes(data))


def test_state_is_never_a_graph_input():
    """An SVDF's state listed as a graph input too: the application would have to pass it."""
    from tests.ops.test_op_svdf import build_svdf

    data, _ = build_svdf(dict(batch=1, input_size=4, units=2, rank=1, memory=3, runs=1, seed=1))
    model = unpack(data)
    model.subgraphs[0].inputs = list(model.subgraphs[0].inputs) + [4]  # the activation state
    assert "graph input tensor 4 'activation_state' is a variable" in refused(pack(model))


def test_an_intermediate_with_data_is_refused():
    """LSTM intermediates only carry scales: TFLite Micro refuses one with bytes."""
    from tests.ops.test_op_unidirectional_sequence_lstm import EXPLICIT, build_lstm

    model = unpack(build_lstm(EXPLICIT[0])[0])
    extra = schema.TensorT()
    extra.shape, extra.type, extra.name, extra.buffer = [1], schema.TensorType.INT16, b"gate", 0
    model.subgraphs[0].tensors.append(extra)
    model.subgraphs[0].operators[0].intermediates = [len(model.subgraphs[0].tensors) - 1]
    assert "intermediate tensor" in refused(pack(model))


def _tile_model(mutate) -> bytes:
    """input -> TILE -> RESHAPE -> output: a model LiteRT checks (TFLite Micro has no TILE)."""
    b = ModelBuilder()
    x = b.tensor((1, 2, 3), scale=0.05, zero_point=1, name="x")
    t = b.tensor((2, 2, 3), scale=0.05, zero_point=1, name="tiled")
    y = b.tensor((4, 3), scale=0.05, zero_point=1, name="y")
    ports = {"target": [4, 3]}
    mutate(b, ports)
    b.op("TILE", [x, b.const(np.array([2, 1, 1], np.int32))], [t])
    b.op("RESHAPE", [t, b.const(np.array(ports["target"], np.int32))], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def _folded_tile_model(target, axis: int = 0) -> bytes:
    """x + RESHAPE(TILE(constant)): the constant chain folds away, but LiteRT, the oracle of a model
    with TILE, still loads and prepares it."""
    b = ModelBuilder()
    x = b.tensor((4, 3), scale=0.05, zero_point=1, name="x")
    c = b.const(np.array([[1, 2, 3]], np.int8), scale=0.05, zero_point=1, axis=axis)
    t = b.tensor((4, 3), scale=0.05, zero_point=1, name="tiled")
    r = b.tensor((4, 3), scale=0.05, zero_point=1, name="reshaped")
    y = b.tensor((4, 3), scale=0.1, zero_point=0, name="y")
    b.op("TILE", [c, b.const(np.array([4, 1], np.int32))], [t])
    b.op("RESHAPE", [t, b.const(np.array(target, np.int32))], [r])
    b.op("ADD", [x, r], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def test_what_litert_refuses_is_refused_before_folding_takes_it_away():
    assert [op.kind for op in parse_model(_folded_tile_model([4, 3])).ops] == ["ADD"]  # the chain folded
    assert "negative dimension" in refused(_folded_tile_model([-2, -6]))
    assert "negative dimension" in refused(_folded_tile_model([-1, -1]))
    assert "quantized along dimension 5" in refused(_folded_tile_model([4, 3], axis=5))


def test_a_convolution_without_bias_is_refused_where_litert_is_the_oracle():
    """TFLite Micro takes an omitted bias (-1) as zeros; LiteRT's CONV_2D requires one."""
    def model(bias: bool) -> bytes:
        b = ModelBuilder()
        x = b.tensor((1, 2, 2, 1), scale=0.05, zero_point=0, name="x")
        y = b.tensor((1, 2, 2, 1), scale=0.05, zero_point=0, name="y")
        t = b.tensor((2, 2, 2, 1), scale=0.05, zero_point=0, name="tiled")
        w = b.const(np.ones((1, 1, 1, 1), np.int8), scale=[0.01], zero_point=[0], axis=0)
        bias_tensor = b.const(np.zeros(1, np.int32), scale=[0.0005], zero_point=[0]) if bias else -1
        b.op("CONV_2D", [x, w, bias_tensor], [y], padding=1, stride_h=1, stride_w=1)
        b.op("TILE", [y, b.const(np.array([2, 1, 1, 1], np.int32))], [t])
        b.inputs, b.outputs = [x], [t]
        return b.build()
    assert [op.kind for op in parse_model(model(True)).ops] == ["CONV_2D", "TILE"]
    assert "omits its bias" in refused(model(False))


def test_what_litert_refuses_is_refused_in_the_models_it_checks():
    assert [op.kind for op in parse_model(_tile_model(lambda b, ports: None)).ops] == ["TILE", "RESHAPE"]
    assert "targets shape [5, 3]" in refused(_tile_model(lambda b, ports: ports.update(target=[5, 3])))
    assert parse_model(_tile_model(lambda b, ports: ports.update(target=[-1, 3]))) is not None


def test_a_signature_name_that_is_not_utf8_is_refused_where_litert_is_the_oracle():
    """LiteRT's Python interpreter decodes every signature name when it loads a model."""
    from pathlib import Path

    data = (Path(__file__).resolve().parent.parent / "models" / "detector_tile.tflite").read_bytes()
    assert b"serving_default" in data  # the converter's signature, in a model with TILE
    assert parse_model(data) is not None
    assert "not UTF-8" in refused(data.replace(b"serving_default", b"ser\xf6ing_default"))


@pytest.mark.parametrize("option, value", [("in_data_type", -2), ("out_data_type", 99)])
def test_a_tensor_type_option_tflite_cannot_parse_is_refused(option, value):
    """TFLite Micro's parser converts CAST's data type options and fails on a value it does not know
    (fuzzing: an in_data_type of -2 was accepted, TFLite Micro refused the model)."""
    b = ModelBuilder()
    x, y = b.tensor((1, 4), "int32", name="x"), b.tensor((1, 4), "int16", name="y")
    b.op("CAST", [x], [y], **({"in_data_type": 2, "out_data_type": 7} | {option: value}))
    b.inputs, b.outputs = [x], [y]
    assert f"operator CAST at index 0: {option} {value} is not a tensor type TFLite parses" in refused(b.build())
