"""The interpreter reads a step's constants back from the C its params emitter writes (reference/flash.py)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vmcu_reference.flash import FlashArray, flash_image
from vmcu_tflite.chain import is_depthwise, is_transpose
from vmcu_tflite.codegen.params import conv2d as conv_params
from vmcu_tflite.kernels import describe
from vmcu_tflite.kernels.conv import filter_pitch, wide_filter
from vmcu_tflite.kernels.offset import kernel_bias
from vmcu_tflite.kernels.requant import bias_ctype, negate, requant_form, tables
from vmcu_tflite.pipeline import compile_model

MODELS = Path(__file__).resolve().parents[1] / "models"


def _layers(step):
    """(C expression of each layer's params, the layer's converter params) of a described step."""
    if step.kernel != "LAYER_CHAIN":
        return [("p", step.params)]
    return [(f"p->{'depthwise' if is_depthwise(layer) else 'conv'}[{j}]", layer)
            for j, layer in enumerate(step.params.layers) if not is_transpose(layer)]


@pytest.mark.parametrize("model, fuse", [("conv_stack", False), ("conv_stack", True), ("depthwise_block", True),
                                         ("kws_like", True), ("fc_batch", True)])
def test_the_image_holds_the_converters_constants_in_the_cs_layout(model, fuse):
    program = compile_model(MODELS / f"{model}.tflite", fuse=fuse)
    checked = widened = 0
    for step, planned in zip(program.steps, program.plan.steps):
        if describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows) is None:
            continue
        image = flash_image(step, program.graph)
        for at, layer in _layers(step):
            axis = -1 if is_depthwise(layer) else 0
            table = layer.bias if is_depthwise(layer) else kernel_bias(layer)  # the offset folded in (offset.py)
            form = requant_form(layer.filter, layer.bias, layer.requant, axis, table)  # negated channels, tables' encoding
            filter_ = negate(layer.filter, form, axis)
            rows = filter_.reshape(filter_.shape[0], -1)
            lanes = is_depthwise(layer) and getattr(layer, "int16_weights", False)  # widened_weights.py
            wide = lanes or (step.kernel != "FULLY_CONNECTED" and not is_depthwise(layer) and wide_filter(layer))
            if lanes:  # each group of four channels in the order SXTB16 splits a word: 0, 2, 1, 3
                expected = filter_.reshape(-1, 4)[:, [0, 2, 1, 3]].reshape(-1)
            elif step.kernel == "FULLY_CONNECTED" or is_depthwise(layer):
                expected = filter_.reshape(-1)
            else:  # a convolution's rows padded to the pitch its kernel reads
                expected = np.pad(rows, ((0, 0), (0, filter_pitch(layer) - rows.shape[1]))).reshape(-1)
            # a gathered window's or a widened layer's filter in int16 (two to an int32 word), read as the kernel reads it
            filter_type = "int16_t" if wide else "int8_t"
            assert image.evaluate(f"{at}->filter").ctype == ("int32_t" if wide else "int8_t")
            np.testing.assert_array_equal(image.array(f"{at}->filter", filter_type), expected)
            widened += wide
            np.testing.assert_array_equal(image.array(f"{at}->bias", bias_ctype(table)), negate(table, form, 0))
            multiplier, shift = tables(form, layer.requant)
            np.testing.assert_array_equal(image.array(f"({at})->requant.multiplier", "int32_t"), multiplier)
            np.testing.assert_array_equal(image.array(f"({at})->requant.shift", "int8_t"), shift)
            assert image.integer(f"{at}->input_offset") == layer.input_offset
            assert image.integer(f"(int8_t)(-{at}->input_offset)") == np.int8(np.int64(-layer.input_offset) & 0xFF)
            checked += 1
    # the models with gathered stems, and depthwise_block's and kws_like's widened layers (within the default's 4 KiB)
    assert checked and (widened > 0) == (model in ("conv_stack", "kws_like", "depthwise_block"))


def test_a_bias_is_read_as_the_type_the_kernel_reads_it():
    """The bias member is a `const void *`: the kernel reads it as int16_t or int32_t, little-endian."""
    table = FlashArray("bias", "int32_t", np.array([0x00020001, -1], dtype=np.int32))
    np.testing.assert_array_equal(table.as_type("int16_t"), [1, 2, -1, -1])
    np.testing.assert_array_equal(table.as_type("int32_t"), [0x00020001, -1])


def test_a_constant_the_emitter_changes_is_what_the_image_holds(monkeypatch):
    """Not the converter's arrays: what the C file says (here, a shift the emitter writes one larger)."""
    original = conv_params.requant
    monkeypatch.setattr(conv_params, "requant", lambda writer, name, r, form: original(
        writer, name, replace(r, shift=[s + 1 for s in r.shift]), form))
    program = compile_model(MODELS / "conv_stack.tflite", fuse=False)
    step = program.steps[0]
    image = flash_image(step, program.graph)
    p = step.params
    form = requant_form(p.filter, p.bias, p.requant, 0, kernel_bias(p))
    shift = tables(form, replace(p.requant, shift=[s + 1 for s in p.requant.shift]))[1]
    np.testing.assert_array_equal(image.array("p->requant.shift"), shift)
    assert not np.array_equal(shift, tables(form, p.requant)[1])


def test_expressions_a_description_may_not_write_are_refused():
    program = compile_model(MODELS / "depthwise_block.tflite", fuse=True)
    image = flash_image(program.steps[0], program.graph)
    assert isinstance(image.evaluate("p->add"), dict)
    for wrong in ("p->conv[1]->filter", "p->conv[9]->filter", "p->weights", "p->add + 1"):
        with pytest.raises(ValueError):
            image.evaluate(wrong)
