"""The converter's side of the integrity CRC: the runtime's structs read from vmcu_types.h, C
initializers read back, and a model's CRCs that change with any integer of its tables.

That the runtime computes the same CRCs is checked on every validation build (the harness calls
vmcu_verify_model() before it runs a model: tests/c/test_models_c.py and every QEMU test)."""
from __future__ import annotations

import re
import zlib
from dataclasses import replace

from tests.c.kernel_models import elementwise_model
from vmcu_tflite.codegen.c_layout import structs
from vmcu_tflite.codegen.integrity import crc_ints, header_crc, parse_initializer
from vmcu_tflite.codegen.project import render_project
from vmcu_tflite.pipeline import compile_model


def test_every_struct_of_the_tables_is_read_in_declaration_order():
    layouts = structs()
    assert [f.name for f in layouts["vmcu_model"]][-2:] == ["header_crc", "crc"]
    softmax = layouts["vmcu_softmax_params"]
    assert [f.name for f in softmax] == ["rows", "depth", "input_multiplier", "input_left_shift", "diff_min"]
    step = {f.name: f for f in layouts["vmcu_step"]}
    assert step["inputs"].length == 10 and step["inputs"].base == "uint16_t" and step["kernel"].pointers == 1
    chain = {f.name: f for f in layouts["vmcu_layer_chain_params"]}
    assert chain["conv"].pointers == 2 and chain["conv"].base == "vmcu_conv_params"
    constants = {f.name: f for f in layouts["vmcu_concatenation_params"]}["constants"]
    assert (constants.base, constants.pointers, constants.length) == ("int8_t", 1, 10)


def test_initializers_are_read_back_nested():
    init = "{.a = 1, .b = {.x = -2, .y = INT32_MIN}, .c = {3, 4u}, .d = &name, .e = 0}"
    assert parse_initializer(init) == {"a": "1", "b": {"x": "-2", "y": "INT32_MIN"}, "c": ["3", "4u"],
                                       "d": "&name", "e": "0"}


def test_integers_are_folded_as_four_bytes_little_endian():
    assert crc_ints(0, [1, -1]) == zlib.crc32(b"\x01\x00\x00\x00\xff\xff\xff\xff")
    assert header_crc(1, 2, 3, 4, 5, 6, 7, 8, 9) == crc_ints(0, range(1, 10))


def test_the_model_carries_both_crcs_and_each_follows_its_tables():
    program = compile_model(elementwise_model())
    source = next(text for name, text in render_project(program).items() if name.endswith("_model.c"))
    header, crc = re.search(r"\.header_crc = 0x([0-9a-f]{8})u, \.crc = 0x([0-9a-f]{8})u", source).groups()
    assert header != crc
    # the same plan in a larger pool: another header CRC and another CRC
    larger = replace(program, plan=replace(program.plan, pool_bytes=program.plan.pool_bytes + 4))
    again = next(text for name, text in render_project(larger).items() if name.endswith("_model.c"))
    assert re.search(r"\.header_crc = 0x([0-9a-f]{8})u, \.crc = 0x([0-9a-f]{8})u", again).groups() != (header, crc)

