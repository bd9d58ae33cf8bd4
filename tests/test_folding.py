"""Shape arithmetic on constants is folded at conversion (Keras exports with a dynamic batch).

SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE computes a RESHAPE's target at run time in TFLite; here
the chain becomes a constant before the operators are checked, so such a model needs no kernel
for SHAPE or PACK and stays bit-exact with TFLite Micro (which runs the chain).
"""
from __future__ import annotations

import numpy as np
import pytest

from reference.compare import first_divergence
from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_tflite.errors import ModelError
from vmcu_tflite.pipeline import compile_model


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


def test_the_shape_chain_folds_and_stays_bit_exact():
    model = dynamic_batch_classifier()
    program = compile_model(model)
    assert [op.kind for op in program.graph.ops] == ["FULLY_CONNECTED"]
    inputs = random_inputs(program.graph, 3)
    result = Interpreter(program).run(inputs, record=True)
    assert first_divergence(model, program, inputs, result) is None


def test_a_folded_value_must_have_its_declared_shape():
    with pytest.raises(ModelError, match="PACK at index 2 computes shape \\(2,\\).*declares \\(3,\\)"):
        compile_model(dynamic_batch_classifier(declared=(3,)))


def test_an_unknown_operator_on_activations_is_still_refused():
    """STRIDED_SLICE out of range folds to nothing: it stays, so the PACK of its result cannot fold
    either and is named as unsupported."""
    with pytest.raises(ModelError, match="unsupported operator PACK"):
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
    model = b.build()
    program = compile_model(model)
    assert [op.kind for op in program.graph.ops] == ["ADD"]
    assert program.graph.tensors[full].data.shape == (1, 4, 4, 2)
    inputs = random_inputs(program.graph, 4)
    result = Interpreter(program).run(inputs, record=True)
    assert first_divergence(model, program, inputs, result) is None
