"""The generated C of the 16x8 heavy layers, bit-exact with the reference interpreter and TFLite Micro.

Single-op models of each kind and a network of the four (tests/ops/test_op_int16_heavy.py) on the
host with AddressSanitizer and UndefinedBehaviorSanitizer (the portable dot products and the int16
loads through pointers into the pool), with the DSP paths' instructions emulated (SMLAD on int16
pairs), under both planners and with segments that leave a partial last one; on the Cortex-M4
under QEMU, where the DSP path runs on the real instructions; and on the Cortex-M55, where the dot
products are Helium's (VMLALDAVA.S16 into int64, the depthwise lanes' int32 partial sums), for the
single-op models and every 16x8 fixture in models/.
"""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.models_under_test import FIXTURES
from tests.c.c_validate import EMULATED_DSP_HOST, check_model, check_program, program_with_segment
from tests.ops.test_op_int16_heavy import SAME, build_conv, build_fc, build_pointwise_then_gather, build_stack
from tests.ops.test_op_upsample_conv import build_upsample_conv
from vmcu_tflite.codegen.project import render_project
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate.run import validate, validate_program
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
    # a RESIZE_NEAREST_NEIGHBOR folded into the conv: the window gathered tap by tap from the small tensor
    "upsample_conv": lambda: build_upsample_conv(shape=(1, 4, 5, 8), factors=(2, 2), c_out=5, seed=2)[0],
    "upsample_conv_taps": lambda: build_upsample_conv(shape=(1, 3, 3, 20), factors=(3, 2), c_out=3, stride=(2, 1),
                                                      bias="int32", seed=4)[0],
    # the upsampled tensor is also a graph output: the int16 RESIZE stays a step of its own
    "upsample_kept": lambda: build_upsample_conv(shape=(1, 3, 4, 6), factors=(2, 2), second_reader=True)[0],
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
                                           ("depthwise", "vmcu"), ("stem", "vmcu"), ("gather_wrapping", "vmcu"),
                                           ("upsample_conv", "vmcu"), ("upsample_conv_taps", "tensor")])
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
                                  "gather_wrapping", "upsample_conv"])
def test_qemu_cortex_m4(model_files, name):
    v = validate(model_files[name], TARGETS["qemu-cortex-m4"], seed=1)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


SIXTEEN_BY_EIGHT = [m for m in FIXTURES if m.stem in {"kws_dscnn_16x8", "autoencoder_16x8", "lstm_16x8",
                                                      "gru_16x8", "lstm_sequence_16x8", "mixed_int8_int16",
                                                      "heavy_16x8", "elementwise16", "sixteen_by_eight"}]


@needs_qemu
@pytest.mark.parametrize("name", list(MODELS))
def test_qemu_cortex_m55(model_files, name):
    v = validate(model_files[name], TARGETS["qemu-cortex-m55"], seed=1)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


@needs_qemu
@pytest.mark.parametrize("model", SIXTEEN_BY_EIGHT, ids=lambda m: m.stem)
def test_fixture_on_cortex_m55(model, tmp_path, shared_plans):
    v = validate(model, TARGETS["qemu-cortex-m55"], seed=3, work=tmp_path)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


@needs_qemu
@pytest.mark.parametrize("target", ["qemu-cortex-m4", "qemu-cortex-m55"])
def test_the_mixed_graph_streamed_runs_in_half_tflite_micros_arena(target, tmp_path, shared_plans):
    """mixed_int8_int16 with its image rows pulled by its int8 backbone's chain: bit-exact on both
    boards, in a pool half TFLite Micro's 320-byte arena head (72 bytes of image rows, 88 of the
    depthwise line ring, the means stored over them)."""
    model = next(m for m in FIXTURES if m.stem == "mixed_int8_int16")
    program = compile_model(model, tuning=TARGETS[target].tuning, stream_inputs=[0])
    assert 2 * program.plan.pool_bytes <= 320
    v = validate_program(program, model.read_bytes(), TARGETS[target], seed=3, work=tmp_path)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


@needs_qemu
@pytest.mark.parametrize("target", ["qemu-cortex-m4", "qemu-cortex-m55"])
@pytest.mark.parametrize("stem", ["lstm_16x8", "gru_16x8"])
def test_unrolled_recurrent_models_pull_their_frames_bit_exact(stem, target, tmp_path, shared_plans):
    """Streamed, an unrolled LSTM's or GRU's frames are pulled one by one, each just before its time
    step (PULLED_ROW steps, their generated kernels calling vmcu_pull_row): bit-exact on both boards,
    in a smaller pool than with the sequence whole."""
    model = next(m for m in FIXTURES if m.stem == stem)
    program = compile_model(model, tuning=TARGETS[target].tuning, stream_inputs=[0])
    assert sum(s.kernel == "PULLED_ROW" for s in program.steps) == 5
    assert program.plan.pool_bytes < compile_model(model, tuning=TARGETS[target].tuning).plan.pool_bytes
    v = validate_program(program, model.read_bytes(), TARGETS[target], seed=3, work=tmp_path)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


def test_every_16x8_fixture_runs_on_cortex_m55():
    assert len(SIXTEEN_BY_EIGHT) == 9, [m.stem for m in SIXTEEN_BY_EIGHT]


@needs_qemu
def test_m55_runs_helium_in_the_16x8_kernels(model_files, tmp_path):
    """The stack's generated kernels (a conv, a depthwise, a pointwise, a fully connected layer) take
    Helium's 16x8 forms on the Cortex-M55: VMLADAVA.S16 / VMLALDAVA.S16 (objdump: vmlava.s16, vmlalva.s16)
    for the dot products (int32 chunks of an int64 sum, or int64 directly) and VMUL.I32 for the depthwise
    lanes' partial sums, bit-exact (the stem's gathered window too: int16 by int16 weights, VMLALDAVA.S16)."""
    v = validate(model_files["stack"], TARGETS["qemu-cortex-m55"], seed=1, work=tmp_path)
    assert v.status == 0 and v.matches_reference and v.matches_tflm
    listing = subprocess.run(["arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main",
                              str(tmp_path / "build" / "vmcu_validate")], capture_output=True, text=True,
                             check=True).stdout
    functions = dict(re.findall(r"<(\w+)>:\n(.*?)(?:\n\n|$)", listing, re.S))
    kernels = " ".join(body for name, body in functions.items() if "_s16_" in name)
    assert kernels, sorted(functions)
    assert "vmlava.s16" in kernels or "vmlalva.s16" in kernels
    assert "vmul.i32" in kernels


def _model_c(model: bytes, tuning: str) -> str:
    rendered = render_project(compile_model(model, tuning=tuning), "m")
    return next(text for name, text in rendered.items() if name.endswith("_model.c"))


@pytest.mark.parametrize("k, partial", [((3, 3), True), ((23, 23), False)], ids=["3x3", "23x23"])
def test_depthwise_partial_sums_only_where_int32_cannot_overflow(k, partial):
    """The Helium depthwise sums a group's products in int32 only where at most 511 of them (each
    below 2^22) come between two requantizations: a 23x23 kernel's 529 taps keep the int64 lanes."""
    model = build_conv("DEPTHWISE_CONV_2D", shape=(1, 24, 24, 4), k=k)[0]
    assert ("vmcu_mac4_s16_s8" in _model_c(model, "helium")) is partial


@needs_qemu
def test_depthwise_of_529_taps_on_cortex_m55(tmp_path):
    """The 23x23 depthwise (int64 lanes throughout on Helium) bit-exact on the Cortex-M55."""
    path = tmp_path / "dw23.tflite"
    path.write_bytes(build_conv("DEPTHWISE_CONV_2D", shape=(1, 24, 24, 4), k=(23, 23))[0])
    v = validate(path, TARGETS["qemu-cortex-m55"], seed=1)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


def test_wide_requantization_takes_helium_lanes_where_the_converter_proves_them():
    """The 64-bit requantization runs on four lanes on Helium (vmcu_requantize64_2x2_mve for a convolution's
    channel pair, vmcu_requantize64_row4_mve for a GEMM's four channels) only where requant.wide_lanes holds;
    the scalar loop stays for the rest and is all the Cortex-M4 compiles (the same C under #if VMCU_MVE)."""
    stack = _model_c(build_stack(), "helium")
    assert "vmcu_requantize64_2x2_mve(" in stack and "vmcu_requantize64_row4_mve(" in stack
    assert "vmcu_requantize64(" in stack  # the scalar form beside the vector ones (and the depthwise's)
    fc_wide_bias = _model_c(MODELS["fc_wide_bias"](), "helium")  # an int64 bias table: no int32 accumulators
    assert "vmcu_requantize64(" in fc_wide_bias and "vmcu_requantize64_row4_mve(" not in fc_wide_bias
    dsp = _model_c(build_stack(), "dsp")
    lines = [line for line in dsp.splitlines() if "vmcu_requantize64_" in line]
    assert lines and all(re.search(r"vmcu_requantize64_(2x2|row4)_mve\(", line) for line in lines)
