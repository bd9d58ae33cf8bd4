"""uint8 models (the STM32 model zoo's exports): int8 inside, a uint8 QUANTIZE at each end.

A QUANTIZE uint8 -> int8 that keeps the scale and moves the zero point by 128 is TFLite's top-bit
flip; it becomes part of the I/O description (the application passes and gets uint8), so the
pool holds int8 only. A QUANTIZE that rescales stays a step, an int8 requantization with the
uint8 end kept in the pool as int8. Bit-exact with TFLite Micro through the reference
interpreter, the sanitized host build and qemu-cortex-m4.
"""
from __future__ import annotations

import numpy as np
import pytest

from reference.compare import first_divergence
from reference.inputs import random_inputs
from reference.interpreter import Interpreter
from tests.c.test_qemu import needs_qemu
from tests.tflite_builder import ModelBuilder, random_bias, random_weights
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import SANITIZED_HOST, TARGETS


def uint8_model(output_zero_point: int = 131, input_scale: float = 1 / 255) -> bytes:
    rng = np.random.default_rng(4)
    b = ModelBuilder()
    x = b.tensor((1, 6, 6, 3), dtype="uint8", scale=input_scale, zero_point=128)
    q = b.tensor((1, 6, 6, 3), scale=1 / 255, zero_point=0)
    w = b.const(random_weights(rng, (8, 3, 3, 3)), scale=[0.01] * 8, zero_point=0, axis=0)
    bias = b.const(random_bias(rng, 8), scale=[0.01 / 255] * 8, zero_point=0)
    y = b.tensor((1, 6, 6, 8), scale=0.02, zero_point=3)
    out = b.tensor((1, 6, 6, 8), dtype="uint8", scale=0.02, zero_point=output_zero_point)
    b.op("QUANTIZE", [x], [q])
    b.op("CONV_2D", [q, w, bias], [y], padding=0, stride_h=1, stride_w=1)
    b.op("QUANTIZE", [y], [out])
    b.inputs, b.outputs = [x], [out]
    return b.build()


def test_the_boundary_becomes_the_io_description_and_stays_bit_exact():
    model = uint8_model()
    program = compile_model(model)
    assert [s.kernel for s in program.steps] == ["CONV_2D"]
    assert_uint8_and_bit_exact(model, program, seeds=[2])


def assert_uint8_and_bit_exact(model: bytes, program, seeds) -> None:
    """The application passes and gets uint8, and every step matches TFLite Micro."""
    assert [p.dtype for p in program.graph.inputs + program.graph.outputs] == ["uint8", "uint8"]
    for seed in seeds:
        inputs = random_inputs(program.graph, seed)
        assert inputs[0].dtype == np.uint8
        result = Interpreter(program).run(inputs, record=True)
        assert result.outputs[0].dtype == np.uint8
        assert first_divergence(model, program, inputs, result) is None


@pytest.mark.parametrize("target", [SANITIZED_HOST, pytest.param(TARGETS["qemu-cortex-m4"], marks=needs_qemu)],
                         ids=lambda t: t.name)
def test_the_generated_c_takes_and_gives_uint8(target, tmp_path):
    path = tmp_path / "u8.tflite"
    path.write_bytes(uint8_model())
    result = validate(path, target, seed=3, work=tmp_path / "work")
    assert result.status == 0 and result.matches_reference and result.matches_tflm


RESCALING = [dict(input_scale=1 / 128), dict(input_scale=0.05), dict(output_zero_point=10),
             dict(input_scale=1 / 100, output_zero_point=200)]


@pytest.mark.parametrize("rescale", RESCALING, ids=lambda r: ",".join(f"{k}={v:g}" for k, v in r.items()))
def test_a_rescaling_uint8_quantize_stays_an_int8_requantization(rescale):
    """The application still passes and gets uint8 (the top bit flipped); the pool holds int8 and
    the QUANTIZE requantizes int8 -> int8 with the uint8 end's zero point 128 lower."""
    model = uint8_model(**rescale)
    program = compile_model(model)
    assert "QUANTIZE" in [s.kernel for s in program.steps]
    assert all(program.graph.tensors[p.tensor].dtype == "int8" for p in program.graph.inputs + program.graph.outputs)
    assert_uint8_and_bit_exact(model, program, seeds=range(3))


@pytest.mark.parametrize("target", [SANITIZED_HOST, pytest.param(TARGETS["qemu-cortex-m4"], marks=needs_qemu)],
                         ids=lambda t: t.name)
def test_the_generated_c_rescales_uint8_bit_exact(target, tmp_path):
    path = tmp_path / "u8.tflite"
    path.write_bytes(uint8_model(input_scale=1 / 100, output_zero_point=200))
    result = validate(path, target, seed=5, work=tmp_path / "work")
    assert result.status == 0 and result.matches_reference and result.matches_tflm
