"""The generated C of the 16x8 heavy layers, bit-exact with the reference interpreter and TFLite Micro.

Single-op models of each kind and a network of the four (tests/ops/test_op_int16_heavy.py) on the
host with AddressSanitizer and UndefinedBehaviorSanitizer (the portable dot products and the int16
loads through pointers into the pool), with the DSP paths' instructions emulated (SMLAD on int16
pairs), under both planners and with segments that leave a partial last one; and on the Cortex-M4
under QEMU, where the DSP path runs on the real instructions.
"""
from __future__ import annotations

import shutil

import pytest

from tests.c.c_validate import EMULATED_DSP_HOST, check_model, check_program, program_with_segment
from tests.ops.test_op_int16_heavy import SAME, build_conv, build_fc, build_pointwise_then_gather, build_stack
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import QEMU_TOOLS, SANITIZED_HOST, TARGETS

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
needs_qemu = pytest.mark.skipif(not all(shutil.which(t) for t in ("cmake", *QEMU_TOOLS)),
                                reason="arm-none-eabi-gcc, qemu-system-arm or cmake missing")

MODELS = {
    "fc": lambda: build_fc(3, 70, 13, "int64", per_channel=True, seed=7)[0],
    "fc_int32_bias": lambda: build_fc(2, 33, 9, "int32", seed=8)[0],
    "fc_wide_bias": lambda: build_fc(2, 24, 8, "int64", seed=4, bias_bits=36)[0],  # an int64_t bias table
    "pointwise": lambda: build_conv(shape=(2, 3, 4, 8), c_out=6)[0],
    "conv": lambda: build_conv(shape=(1, 7, 6, 5), c_out=7, k=(3, 3), stride=(2, 2), padding=SAME, act=1)[0],
    "conv_dilated": lambda: build_conv(shape=(1, 7, 7, 3), k=(3, 2), dilation=(2, 2), bias="int32")[0],
    "depthwise": lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 6, 6, 10), k=(3, 3), padding=SAME)[0],
    "depthwise_multiplier": lambda: build_conv("DEPTHWISE_CONV_2D", shape=(1, 7, 7, 3), k=(3, 2), dilation=(2, 2),
                                               mult=2, bias=None)[0],
    "stack": build_stack,
    "stem": lambda: build_conv(shape=(1, 13, 9, 1), c_out=9, k=(5, 3), stride=(2, 2), padding=SAME, bias="int32",
                               seed=3)[0],  # a gathered window, int32 sums
    "gather_wrapping": build_pointwise_then_gather,  # a gathered window read across the end of the pool
}


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("int16_models")
    paths = {}
    for name, make in MODELS.items():
        paths[name] = folder / f"{name}.tflite"
        paths[name].write_bytes(make())
    return paths


@pytest.mark.parametrize("name", list(MODELS))
def test_sanitized_host(model_files, name):
    v = validate(model_files[name], SANITIZED_HOST, seed=1)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


@pytest.mark.parametrize("name, planner", [("stack", "vmcu"), ("stack", "tensor"), ("fc", "vmcu"),
                                           ("depthwise", "vmcu"), ("stem", "vmcu"), ("gather_wrapping", "vmcu")])
def test_emulated_dsp(name, planner):
    assert check_model(MODELS[name](), planner, EMULATED_DSP_HOST, seed=3)[:2] == (True, True)


@pytest.mark.parametrize("name", ["stack", "conv", "depthwise"])
def test_partial_segments(name):
    """Segments of 3 int16 channels (6 bytes): a partial last segment in each kernel."""
    model = MODELS[name]()
    program = program_with_segment(model, 6)
    assert any(s.mode == "segment" and s.segment_bytes == 6 for s in program.plan.steps)
    assert check_program(program, model, seed=2)[:2] == (True, True)


@needs_qemu
@pytest.mark.parametrize("name", ["stack", "fc_wide_bias", "conv_dilated", "depthwise_multiplier", "stem",
                                  "gather_wrapping"])
def test_qemu_cortex_m4(model_files, name):
    v = validate(model_files[name], TARGETS["qemu-cortex-m4"], seed=1)
    assert v.status == 0 and v.matches_reference and v.matches_tflm
