"""Operators on constants are folded at conversion (Keras exports with a dynamic batch; detectors' anchors).

SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE computes a RESHAPE's target at run time in TFLite; here
the chain becomes a constant before the operators are checked, so such a model needs no kernel
for SHAPE or PACK and stays bit-exact with TFLite Micro (which runs the chain).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from reference.compare import first_divergence
from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_tflite.errors import ModelError
from vmcu_tflite.folding import fold_constants
from vmcu_tflite.oracle import run_tflm
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.reader import parse_model


def dynamic_batch_classifier(begin: int = 0, declared: tuple[int, ...] = (2,)) -> bytes:
    """x [1, 4, 4, 2] -> RESHAPE to [batch, 32] with batch = SHAPE(x)[0] -> FULLY_CONNECTED 5."""
    rng = np.random.default_rng(7)
    b = ModelBuilder()
    x = b.tensor((1, 4, 4, 2), scale=0.05, zero_point=-3)
    shape = b.tensor((4,), dtype="int32")
    batch = b.tensor((), dtype="int32")
    target = b.tensor(declared, dtype="int32")
    flat = b.tensor((1, 32), scale=0.05, zero_point=-3)
    w = b.const(random_weights(rng, (5, 32)), scale=0.01, zero_point=0)
    bias = b.const(random_bias(rng, 5), scale=0.0005, zero_point=0)
    y = b.tensor((1, 5), scale=0.1, zero_point=2)
    b.op("SHAPE", [x], [shape], out_type=2)  # INT32
    b.op("STRIDED_SLICE", [shape, b.const(np.array([begin], np.int32)), b.const(np.array([begin + 1], np.int32)),
                           b.const(np.array([1], np.int32))], [batch], shrink_axis_mask=1)
    b.op("PACK", [batch, b.const(np.array(32, np.int32))], [target], values_count=2, axis=0)
    b.op("RESHAPE", [x, target], [flat])
    b.op("FULLY_CONNECTED", [flat, w, bias], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def folded_and_bit_exact(model: bytes, kinds: list[str], seed: int):
    """The program left after folding runs `kinds` and matches TFLite Micro; returns it."""
    program = compile_model(model)
    assert [op.kind for op in program.graph.ops] == kinds
    inputs = random_inputs(program.graph, seed)
    result = Interpreter(program).run(inputs, record=True)
    assert first_divergence(model, program, inputs, result) is None
    return program


def test_the_shape_chain_folds_and_stays_bit_exact():
    folded_and_bit_exact(dynamic_batch_classifier(), ["FULLY_CONNECTED"], 3)


def test_a_folded_value_must_have_its_declared_shape():
    with pytest.raises(ModelError, match="PACK at index 2 computes shape \\(2,\\).*declares \\(3,\\)"):
        compile_model(dynamic_batch_classifier(declared=(3,)))


def test_shape_arithmetic_left_on_activations_is_still_refused():
    """STRIDED_SLICE out of range folds to nothing: it stays, so the PACK of its result cannot fold
    either, and its int32 vectors are activations PACK does not take (int8 only)."""
    with pytest.raises(ModelError, match="int32 activations are not supported .* PACK at index 2"):
        compile_model(dynamic_batch_classifier(begin=7))


def test_a_broadcast_constant_operand_folds():
    """ADD(x, BROADCAST_TO(c, [1, 4, 4, 2])): the operand becomes a constant of the full shape, the
    values TFLite Micro computes."""
    rng = np.random.default_rng(9)
    b = ModelBuilder()
    x = b.tensor((1, 4, 4, 2), scale=0.05, zero_point=-3)
    c = b.const(rng.integers(-128, 128, size=(1, 1, 1, 2)).astype(np.int8), scale=0.04, zero_point=1)
    full = b.tensor((1, 4, 4, 2), scale=0.04, zero_point=1)
    y = b.tensor((1, 4, 4, 2), scale=0.08, zero_point=0)
    b.op("BROADCAST_TO", [c, b.const(np.array([1, 4, 4, 2], np.int32))], [full])
    b.op("ADD", [x, full], [y])
    b.inputs, b.outputs = [x], [y]
    program = folded_and_bit_exact(b.build(), ["ADD"], 4)
    assert program.graph.tensors[full].data.shape == (1, 4, 4, 2)


def expanded_constant_operand(expanded=(1, 4, 1, 2)) -> bytes:
    """ADD(x [1, 4, 1, 2], EXPAND_DIMS(c [1, 4, 2], axis -2)): a constant operand made by EXPAND_DIMS."""
    b = ModelBuilder()
    c = np.random.default_rng(10).integers(-128, 128, size=(1, 4, 2)).astype(np.int8)
    x, e = b.tensor((1, 4, 1, 2), scale=0.05, zero_point=-3), b.tensor(expanded, scale=0.04, zero_point=1)
    b.op("EXPAND_DIMS", [b.const(c, scale=0.04, zero_point=1), b.const(np.array(-2, np.int32))], [e])
    b.inputs, b.outputs = [x], [b.tensor((1, 4, 1, 2), scale=0.08, zero_point=0)]
    b.op("ADD", [x, e], b.outputs)
    return b.build()


def test_an_expand_dims_of_a_constant_folds():
    folded_and_bit_exact(expanded_constant_operand(), ["ADD"], 5)


def test_a_folded_expand_dims_is_checked_as_tflite_micro_prepares_it():
    """[1, 4, 2] with a 1 inserted at axis -2 is [1, 4, 1, 2], not [1, 1, 4, 2]: refused, not reshaped."""
    with pytest.raises(ModelError, match=r"EXPAND_DIMS at index 0 turns shape \(1, 4, 2\) into \(1, 1, 4, 2\)"):
        compile_model(expanded_constant_operand(expanded=(1, 1, 4, 2)))


ANCHOR_QUANT = dict(scale=0.0123, zero_point=-7)  # a scale whose float32 product differs from TFLite's double


def anchor_model(tile: bool = True, reader: str | None = None) -> bytes:
    """x [1, 8] -> FULLY_CONNECTED -> output 0; output 1 computed from constants only, as ST's SSD
    anchors: RESHAPE of a constant and TILE (or, for TFLite Micro, RESHAPE) of another, joined by
    an int8 CONCATENATION, then DEQUANTIZE to float32. `reader`: "add" also feeds the int8
    anchors to an ADD with the activation (read from the pool, so written before it)."""
    rng = np.random.default_rng(5)
    b = ModelBuilder()
    x = b.tensor((1, 8), scale=0.02, zero_point=3, name="x")
    y = b.tensor((1, 4), scale=0.05, zero_point=-2, name="y")
    b.op("FULLY_CONNECTED", [x, b.const(random_weights(rng, (4, 8)), scale=0.01, zero_point=0), -1], [y])
    first = b.tensor((1, 2, 4), **ANCHOR_QUANT)
    b.op("RESHAPE", [b.const(rng.integers(-128, 128, (8,)).astype(np.int8), **ANCHOR_QUANT),
                     b.const(np.array([1, 2, 4], np.int32))], [first], new_shape=[1, 2, 4])
    second = b.tensor((1, 3, 4), **ANCHOR_QUANT)
    if tile:
        b.op("TILE", [b.const(rng.integers(-128, 128, (1, 1, 4)).astype(np.int8), **ANCHOR_QUANT),
                      b.const(np.array([1, 3, 1], np.int32))], [second])
    else:
        b.op("RESHAPE", [b.const(rng.integers(-128, 128, (3, 4)).astype(np.int8), **ANCHOR_QUANT),
                         b.const(np.array([1, 3, 4], np.int32))], [second], new_shape=[1, 3, 4])
    joined = b.tensor((1, 5, 4), name="anchors/int8", **ANCHOR_QUANT)
    b.op("CONCATENATION", [first, second], [joined], axis=1)
    anchors = b.tensor((1, 5, 4), dtype="float32", name="anchors")
    b.op("DEQUANTIZE", [joined], [anchors])
    b.inputs, b.outputs = [x], [y, anchors]
    if reader == "add":  # a second input added to the int8 anchors
        x2 = b.tensor((1, 5, 4), scale=0.03, zero_point=1, name="x2")
        z = b.tensor((1, 5, 4), scale=0.04, zero_point=-1, name="z")
        b.op("ADD", [joined, x2], [z])
        b.inputs, b.outputs = [x, x2], [y, anchors, z]
    elif reader == "constant":  # an ADD of the first part and another constant: ADD does not fold
        z = b.tensor((1, 2, 4), scale=0.04, zero_point=-1, name="z")
        b.op("ADD", [first, b.const(np.full((1, 2, 4), 9, np.int8), **ANCHOR_QUANT)], [z])
        b.outputs.append(z)
    return b.build()


def _bits(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def test_the_scale_tells_the_stored_float32_scale_from_the_decimal_one():
    """The anchors' float bits depend on the scale the model stores: float32(0.0123) in double,
    times q - zero point, rounded to float32 (an int8 difference times a float32 is exact in
    double, so the one rounding is TFLite's), not the decimal 0.0123 a float-side formula uses."""
    q = np.arange(-128, 128, dtype=np.int64) - ANCHOR_QUANT["zero_point"]
    stored = (np.float64(np.float32(ANCHOR_QUANT["scale"])) * q).astype(np.float32)
    decimal = (np.float64(ANCHOR_QUANT["scale"]) * q).astype(np.float32)
    assert (_bits(stored) != _bits(decimal)).any()


@pytest.mark.parametrize("tile", [False, True])
def test_a_constant_output_is_folded_and_written_by_a_step(tile):
    """Both outputs bit-exact with the oracle (TFLite Micro; LiteRT where TILE is in the model),
    the anchors' float bits included; the anchors are the concatenated constants, written by one
    CONSTANT step that stands for the RESHAPE, TILE and CONCATENATION (ops 1 to 3)."""
    model = anchor_model(tile)
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["FULLY_CONNECTED", "CONSTANT"]
    assert program.steps[1].ops == (1, 2, 3) and program.steps[1].inputs == ()
    inputs = random_inputs(program.graph, 6)
    result = Interpreter(program).run(inputs, record=True)
    assert first_divergence(model, program, inputs, result) is None
    theirs = run_tflm(model, inputs, 2)[0][1]
    assert theirs.dtype == np.float32 and (_bits(result.outputs[1]) == _bits(theirs)).all()
    q = np.asarray(result.raw_outputs[1], dtype=np.int64) - ANCHOR_QUANT["zero_point"]
    assert (_bits(result.outputs[1]) == _bits(np.float64(np.float32(ANCHOR_QUANT["scale"])) * q)).all()


def test_a_wrong_constant_is_caught():
    """One byte of the CONSTANT step's table off: the comparison with the oracle names its tensor."""
    model = anchor_model(tile=False)
    program = compile_model(model)
    step = program.steps[1]
    data = np.array(step.params.data)
    data.reshape(-1)[7] ^= 1
    wrong = replace(program, steps=(program.steps[0], replace(step, params=replace(step.params, data=data))))
    inputs = random_inputs(program.graph, 6)
    divergence = first_divergence(model, wrong, inputs, Interpreter(wrong).run(inputs, record=True))
    assert divergence is not None and divergence.name == "anchors/int8"


def test_dequantize_of_constants_folds_with_tflites_formula():
    """A DEQUANTIZE that is no graph boundary folds to float(double(scale) x (q - zero point)):
    the bits TFLite Micro gives for the same DEQUANTIZE as an output."""
    model = anchor_model(tile=False)
    graph = parse_model(model)
    ops, tensors = fold_constants(graph.ops, graph.tensors, ())
    assert [op.kind for op in ops] == ["FULLY_CONNECTED"]
    anchors = graph.outputs[1].tensor
    assert tensors[anchors].dtype == "float32" and tensors[anchors].folded_from == (1, 2, 3, 4)
    theirs = run_tflm(model, random_inputs(graph, 1), 2)[0][1]
    assert (_bits(tensors[anchors].data) == _bits(theirs)).all()


def test_a_constant_output_read_by_an_op_is_written_before_it():
    """The int8 anchors also feed an ADD with a second input: the ADD reads them from the pool, so
    the CONSTANT step comes before it."""
    model = anchor_model(tile=False, reader="add")
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["FULLY_CONNECTED", "CONSTANT", "ADD"]
    inputs = random_inputs(program.graph, 8)
    assert first_divergence(model, program, inputs, Interpreter(program).run(inputs, record=True)) is None


def test_an_op_on_constants_that_does_not_fold_is_named():
    with pytest.raises(ModelError, match="^operator ADD at index 5 reads only constants, and folding ADD of "
                                         "these constants is not supported$"):
        compile_model(anchor_model(tile=False, reader="constant"))


def test_a_folded_chain_feeds_an_op_on_activations():
    """Constants RESHAPEd and joined by an int8 CONCATENATION, added to the activation: the chain
    folds into the ADD's constant operand, bit-exact with TFLite Micro."""
    rng = np.random.default_rng(11)
    b = ModelBuilder()
    x = b.tensor((1, 2, 4), **ANCHOR_QUANT)
    parts = []
    for rows in (1, 1):
        part = b.tensor((1, rows, 4), **ANCHOR_QUANT)
        b.op("RESHAPE", [b.const(rng.integers(-128, 128, (4 * rows,)).astype(np.int8), **ANCHOR_QUANT),
                         b.const(np.array([1, rows, 4], np.int32))], [part], new_shape=[1, rows, 4])
        parts.append(part)
    joined = b.tensor((1, 2, 4), **ANCHOR_QUANT)
    b.op("CONCATENATION", parts, [joined], axis=1)
    y = b.tensor((1, 2, 4), scale=0.03, zero_point=1)
    b.op("ADD", [x, joined], [y], fused_activation_function=1)
    b.inputs, b.outputs = [x], [y]
    model = b.build()
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["ADD"] and program.graph.tensors[joined].is_constant
    inputs = random_inputs(program.graph, 2)
    assert first_divergence(model, program, inputs, Interpreter(program).run(inputs, record=True)) is None


def test_an_int8_concatenation_of_constants_quantized_apart_is_refused():
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.02, zero_point=0)
    y = b.tensor((1, 4), scale=0.02, zero_point=0)
    b.op("RELU", [x], [y])
    joined = b.tensor((1, 8), scale=0.02, zero_point=0)
    b.op("CONCATENATION", [b.const(np.zeros((1, 4), np.int8), scale=0.02, zero_point=0),
                           b.const(np.zeros((1, 4), np.int8), scale=0.04, zero_point=0)], [joined], axis=1)
    b.inputs, b.outputs = [x], [y, joined]
    with pytest.raises(ModelError, match="^operator CONCATENATION at index 1 joins tensor 4, quantized unlike its "
                                         "output; TFLite Micro does not requantize$"):
        compile_model(b.build())


def test_a_float_constant_output_without_an_int8_source_is_refused():
    """A DEQUANTIZE of constants RESHAPEd in float32 before the output: the output folds to float32
    constants, which the pool (int8, converted at the boundary) cannot hold."""
    b = ModelBuilder()
    x = b.tensor((1, 4), scale=0.02, zero_point=0)
    y = b.tensor((1, 4), scale=0.02, zero_point=0)
    b.op("RELU", [x], [y])
    floats = b.tensor((4,), dtype="float32")
    b.op("DEQUANTIZE", [b.const(np.arange(4, dtype=np.int8), scale=0.5, zero_point=0)], [floats])
    shaped = b.tensor((1, 4), dtype="float32", name="table")
    b.op("RESHAPE", [floats, b.const(np.array([1, 4], np.int32))], [shaped], new_shape=[1, 4])
    b.inputs, b.outputs = [x], [y, shaped]
    with pytest.raises(ModelError, match="^graph output 1 \\(tensor 4 'table'\\) is a constant of type FLOAT32; only "
                                         "int8 constant outputs are supported$"):
        compile_model(b.build())
