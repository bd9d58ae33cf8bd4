"""The C runtime on emulated Cortex-M boards (QEMU), plus host checks of the runtime's contract.

- Calibration: loops of a known instruction count read back exactly (within a SysTick tick),
  across counter wraps, and the stack scan sees a frame of known size.
- vmcu-validate on qemu-cortex-m4 for every fixture in models/ and every model in
  ../shared/models, on qemu-cortex-m7 for the shared models, and the keyword-spotting model on
  qemu-stm32f405 (128 KB RAM): bit-exact outputs and plausible measurements.
- qemu-cortex-m0 (micro:bit), -m3, -m33, -m55 and qemu-riscv32 run the keyword-spotting fixture
  bit-exact; the M55's model kernels contain Helium instructions.
- A model too big for a board's RAM is refused before building, one over its flash fails to link;
  a pool one byte short is refused;
  converting a model twice gives the same files.

The QEMU tests skip when arm-none-eabi-gcc, qemu-system-arm or cmake is missing.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vmcu_tflite
from tests.models_under_test import (FIXTURES, REAL_MODELS, ROOT, conv_chain, left_shift_block, separable_blocks,
                                     signed_scales_block, wide_window_block, without_head)
from vmcu_tflite.cli.validate import format_profile
from vmcu_tflite.codegen.project import write_project
from vmcu_tflite.errors import BudgetError, UsageError
from vmcu_tflite.kernels import paired_weights, widened_weights
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate import targets as targets_module
from vmcu_tflite.validate.run import build_and_run, validate, validate_program
from vmcu_tflite.validate.targets import HOST, QEMU_TOOLS, TARGETS, QemuTarget

HAVE_QEMU = all(shutil.which(tool) for tool in ("cmake", *QEMU_TOOLS))
needs_qemu = pytest.mark.skipif(not HAVE_QEMU, reason="arm-none-eabi-gcc, qemu-system-arm or cmake missing")
HAVE_TFLM = importlib.util.find_spec("tflite_micro") is not None

M4, M7, STM32 = TARGETS["qemu-cortex-m4"], TARGETS["qemu-cortex-m7"], TARGETS["qemu-stm32f405"]
PERSON = [m for m in REAL_MODELS if m.stem == "tflm-person_detect"]
M0, M3, M33, M55 = (TARGETS[f"qemu-cortex-m{n}"] for n in (0, 3, 33, 55))
RISCV = TARGETS["qemu-riscv32"]
needs_riscv = pytest.mark.skipif(not all(shutil.which(t) for t in ("cmake", "riscv64-unknown-elf-gcc",
                                                                    "qemu-system-riscv32")),
                                 reason="gcc-riscv64-unknown-elf, qemu-system-misc or cmake missing")
QEMU_BOARDS = [M4, M7, STM32, M0, M3, M33, M55]
STM32_RAM = 128 * 1024
KWS = [m for m in REAL_MODELS if m.stem == "mlperf-kws-dscnn"]
SMALL_REAL_MODELS = [m for m in REAL_MODELS if m.stat().st_size < 400_000]
HEADED = [m for m in REAL_MODELS if m.stem in ("mlperf-kws-dscnn", "tflm-person_detect", "mcunet-vww1")]
MEASUREMENTS = {"pool_bytes", "data_bss_without_pool_bytes", "data_bss_bytes", "stack_bytes", "heap_bytes",
                "ram_total_bytes", "flash_bytes", "flash_model_bytes",
                "flash_runtime_bytes", "flash_input_bytes", "instructions"}


def _id(item):
    return getattr(item, "stem", None) or getattr(item, "name", str(item))


@pytest.fixture(scope="module")
def chain_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("models") / "chain.tflite"
    path.write_bytes(conv_chain(channels=(3, 16, 8), hw=12))
    return path


def _validate_on(model: Path, target: QemuTarget, tmp_path: Path):
    """Validate on `target`; assert bit-exactness and measurements a real build could produce."""
    result = validate(model, target, seed=3, work=tmp_path)
    assert result.status == 0, f"status {result.status}"
    assert result.matches_reference
    assert result.matches_tflm is (True if HAVE_TFLM else None)
    m = result.measurements
    assert MEASUREMENTS <= set(m), sorted(m)
    # The pool is the harness's static array: exactly the plan's size, inside .bss.
    assert m["pool_bytes"] == result.pool_bytes
    assert m["data_bss_bytes"] == m["pool_bytes"] + m["data_bss_without_pool_bytes"]
    assert 0 < m["data_bss_without_pool_bytes"] < 16384  # newlib, the harness, the model's scratch segment
    assert 0 < m["stack_bytes"] <= target.stack_bytes  # within what the linker script reserved
    assert m["ram_total_bytes"] == m["data_bss_bytes"] + m["stack_bytes"] + m["heap_bytes"]
    assert m["flash_model_bytes"] > 0 and m["flash_runtime_bytes"] > 0 and m["flash_input_bytes"] > 0
    assert m["flash_model_bytes"] + m["flash_runtime_bytes"] + m["flash_input_bytes"] < m["flash_bytes"]
    macs = compile_model(model).plan.macs
    # SMLAD does two multiply-accumulates per instruction, Helium's VMLADAVA sixteen; nothing does more.
    assert macs / (16 if target.tuning == "helium" else 2) <= m["instructions"] < 200 * macs + 10_000_000
    return result


# --- the measurement itself --------------------------------------------------------------------

@needs_qemu
@pytest.mark.parametrize("target", QEMU_BOARDS, ids=_id)
def test_board_measurements_calibrated(target, tmp_path):
    """Under -icount shift=0 the board's SysTick conversion reads known loops back exactly, and
    the stack scan sees a frame of known size."""
    source = ROOT / "csrc" / "targets" / "calibrate"
    cpu = next(a.split("=", 1)[1] for a in target.cmake_args if a.startswith("-DVMCU_CPU="))
    for command in (["cmake", "-S", str(source), "-B", str(tmp_path), "-DCMAKE_BUILD_TYPE=Release",
                     f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'csrc/targets/arm-none-eabi.cmake'}",
                     f"-DVMCU_CPU={cpu}", f"-DVMCU_BOARD={target.board}"],
                    ["cmake", "--build", str(tmp_path)]):
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    from vmcu_tflite.validate.harness import parse_run
    status, _, counts = parse_run(target.run(tmp_path / "calibrate"))
    assert status == 0
    tick = 63  # the coarsest board (the micro:bit's 16 MHz SysTick, 1 ns per instruction): one tick either way
    for loop, per_iteration in (("loop2", 2), ("loop7", 7), ("memory", 4)):
        # Ten million more iterations: the fixed cost of the calls cancels.
        extra = counts[f"{loop}_11000000"] - counts[f"{loop}_1000000"]
        assert abs(extra - 10_000_000 * per_iteration) <= tick, (loop, extra)
        assert -tick <= counts[f"{loop}_1000000"] - 1_000_000 * per_iteration <= 100 + tick, (loop, counts)
    # 800 M instructions span SysTick wraps (2^24 ticks: 671 M instructions on mps2, 100 M on the
    # STM32, 1,049 M on the micro:bit, where none happens): none is lost. Each wrap adds the few instructions of the SysTick handler itself.
    wraps = 8
    assert -tick <= counts["loop2_400000000"] - counts["loop2_1000000"] - 798_000_000 <= tick + 8 * wraps, counts
    # The stack scan sees a 2 KB frame below main's, and nothing more than that frame adds.
    assert 2048 < counts["stack_deep"] <= counts["stack_base"] + 2048 + 64, counts


# --- models on the boards ----------------------------------------------------------------------

@needs_qemu
@pytest.mark.parametrize("target", QEMU_BOARDS, ids=_id)
def test_conv_chain(target, chain_model, tmp_path):
    _validate_on(chain_model, target, tmp_path)


@needs_qemu
@pytest.mark.parametrize("model", FIXTURES, ids=_id)
def test_fixture_on_cortex_m4(model, tmp_path, shared_plans):
    _validate_on(model, M4, tmp_path)


@needs_qemu
def test_audio_front_end_tail_on_cortex_m4(tmp_path):
    """The signal filter bank stages and int32 arithmetic on the board: uint64 sums, the noise
    estimate kept in the state region over a sequence of runs."""
    from tests.ops.test_op_signal_chain import front_end_tail

    model = tmp_path / "audio_tail.tflite"
    model.write_bytes(front_end_tail(channels=10, bins=40))
    _validate_on(model, M4, tmp_path)


@needs_qemu
@pytest.mark.parametrize("target", [M4, M0], ids=_id)
def test_audio_front_end_head_on_the_board(target, tmp_path):
    """The signal library's window, auto scale, real FFT (kissfft's fixed point) and energy on the
    board, with the DSP extension (M4) and without it or unaligned access (M0)."""
    from tests.ops.test_op_signal import signal_chain

    model = tmp_path / "audio_head.tflite"
    model.write_bytes(signal_chain(n=480, window=480, fft_length=512))
    _validate_on(model, target, tmp_path)


@needs_qemu
@pytest.mark.parametrize("target", [M0, M3, M33, M55], ids=_id)
def test_kws_like_on_every_core(target, tmp_path, shared_plans):
    """The keyword-spotting fixture (conv, depthwise, pointwise, pool, FC, softmax) on the cores
    without DSP (M0: ARMv6-M, M3), with it (M33) and with Helium (M55)."""
    result = _validate_on(next(m for m in FIXTURES if m.stem == "kws_like"), target, tmp_path)
    assert result.measurements["ram_total_bytes"] <= target.ram_bytes


@needs_riscv
def test_kws_like_on_riscv32(tmp_path, shared_plans):
    """RV32IMAC on QEMU's virt machine (picolibc, semihosting): bit-exact, instructions from minstret."""
    result = _validate_on(next(m for m in FIXTURES if m.stem == "kws_like"), RISCV, tmp_path)
    assert result.measurements["heap_bytes"] == 0  # picolibc's stdio does not allocate


@needs_qemu
def test_m55_runs_helium_in_the_models_kernels(tmp_path):
    """On the Cortex-M55 (the model converted with the helium tuning) the generated kernels' dot
    products are MVE instructions (VMLADAVA, which objdump names vmlava), the depthwise taps
    widening multiplies of eight 16-bit lanes (VMULLB/VMULLT) and their requantization VQRDMULH, in
    the model's own functions, and the outputs stay bit-exact."""
    model = next(m for m in FIXTURES if m.stem == "kws_like")
    _validate_on(model, M55, tmp_path)
    listing = subprocess.run(["arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", str(tmp_path / "build" / "vmcu_validate")],
                             capture_output=True, text=True, check=True).stdout
    functions = dict(re.findall(r"<(\w+)>:\n(.*?)(?:\n\n|$)", listing, re.S))
    kernels = {name: body for name, body in functions.items() if name.startswith("kws_like_")}
    assert kernels, sorted(functions)
    for instruction in ("vmlava", "vmullb.s16", "vmullt.s16", "vqrdmulh.s32"):
        assert any(instruction in body for body in kernels.values()), instruction


@needs_qemu
@pytest.mark.skipif(not PERSON, reason="../shared/models/tflm-person_detect.tflite is absent")
def test_m55_stores_vectors_into_small_buffers(tmp_path):
    """Person detection without fusion stores each pixel's four requantized channels into 8-byte
    segments: GCC 12 keeps such an int8 array in a core register unless it is declared larger
    (VMCU_BUFFER_BYTES), and then fails with an internal compiler error. Built and bit-exact on the M55."""
    result = validate(PERSON[0], M55, seed=3, work=tmp_path, fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)


@needs_qemu
@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_m55_requantizes_left_shifts_as_vectors(fuse, tmp_path):
    """Layers that scale up (TFLite shifts +1 and +2 beside 0 and -2 in one layer: the shifted form)
    requantize as vectors on the Cortex-M55 too, each lane with its own left and right shift, in a
    fused block and in the layers apart: bit-exact with the reference and TFLite Micro."""
    model = tmp_path / "left_shift_block.tflite"
    model.write_bytes(left_shift_block())
    result = validate(model, M55, seed=3, work=tmp_path / "run", fuse=fuse)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    shifted = re.findall(r"vmcu_requantize(?:8|4|_row4|2x2)_mve\(.*, 1\);", source)
    assert len(shifted) >= 3, "the shifted form is not vectorized"


@needs_qemu
@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_the_dot_loops_take_every_row_length_on_cortex_m4(fuse, tmp_path):
    """1x1 layers of 56, 48, 40 and 64 input channels over rows of five pixels: the assembly 2x2 and
    1x2 loops (vmcu_dot_dsp.c) take rows with both extra parts (8 and 16 inputs past the passes of
    32), each alone and neither, and a row's odd last pixel; bit-exact with TFLite Micro."""
    model = tmp_path / "dot_lengths.tflite"
    model.write_bytes(conv_chain(channels=(56, 48, 40, 64, 8), hw=5))
    result = validate(model, M4, seed=2, work=tmp_path / "run", fuse=fuse)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)


@needs_qemu
def test_column_pair_planes_run_on_cortex_m4(tmp_path):
    """In-place 7x7 and 5x5 layers in two-channel planes of column pairs: SXTAB16 column pairs, taps
    loaded by LDRD (vmcu_load_words), rows of 11 outputs (two four-pixel tiles, a pair, a lone pixel);
    bit-exact with TFLite Micro."""
    model = tmp_path / "wide_windows.tflite"
    model.write_bytes(wide_window_block(9, width=11))
    result = validate(model, M4, seed=6, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert source.count("vmcu_dot_cols_s8(") >= 6  # tiles, pairs and lone pixels, in both layers


@needs_qemu
@pytest.mark.parametrize("bias_bound", [2000, 40000], ids=["16-bit biases", "32-bit biases"])
def test_widened_weights_run_in_assembly_on_cortex_m4(bias_bound, tmp_path, monkeypatch):
    """1x1 layers whose filters the converter widened to int16 (every candidate: the share raised to
    all of the model's filter bytes) in the int16-row forms of the unrolled assembly, rows of 8, 16,
    24, 32 and 40 inputs, the inputs widened in order; the last tile (one pixel) in their one-pixel
    forms. Bit-exact with TFLite Micro."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 1.0)
    model = tmp_path / "widened.tflite"
    model.write_bytes(conv_chain(channels=(8, 16, 24, 32, 40, 8), hw=5, bias_bound=bias_bound, spread=True))
    result = validate(model, M4, seed=4, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    calls = re.findall(r"vmcu_gemm2x2w_k(\d+)_narrow_b(\d+)_run\(&tile\)", source)
    assert [int(k) for k, _ in calls] == [8, 16, 24, 32, 40]
    assert ("32" in {bits for _, bits in calls}) is (bias_bound > 32767)  # biases past 16 bits: _b32_run
    lone = re.findall(r"vmcu_gemm1x2w_k(\d+)_narrow_b(\d+)_run\(&tile\)", source)
    assert [(int(k), bits) for k, bits in lone] == [(int(k), bits) for k, bits in calls]


@needs_qemu
@pytest.mark.parametrize("bias_bound, paired", [(2000, False), (40000, False), (2000, True), (40000, True)],
                         ids=["16-bit biases", "32-bit biases", "16-bit biases-paired", "32-bit biases-paired"])
def test_gemm_channel_pairs_run_in_assembly_on_cortex_m4(bias_bound, paired, tmp_path, monkeypatch):
    """1x1 layers as GEMMs over 25 pixels (the last tile one pixel): every two-pixel tile's channel
    pairs in an assembly loop with the narrow requantization (..._b16_run, or _b32_run for biases
    past 16 bits): rows of 56 inputs in the looped one (vmcu_gemm2x2_narrow_b*_run), rows of 48, 40
    and 64 in the unrolled ones, whose segments may be 8 channels (the 40-input layer's last
    segment is partial: its tiles compute all their channels in one call, `gemm.ALL_UNITS_BYTES`);
    the last tile, one pixel, in the one-pixel forms of both (int8 filters: no int16 copies); with
    the filters in plain rows, or paired (`paired_weights.py`: the `p` forms of each). Bit-exact with
    TFLite Micro."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 0.0)
    if not paired:
        monkeypatch.setattr(paired_weights, "pairs_weights", lambda p: False)
    model = tmp_path / "gemm_pairs.tflite"
    model.write_bytes(conv_chain(channels=(56, 48, 40, 64, 8), hw=5, bias_bound=bias_bound, spread=True))
    result = validate(model, M4, seed=3, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    bits = 16 if bias_bound < 32768 else 32
    calls = re.findall(r"(vmcu_gemm[12]x2p?_\w+_run)\(&tile\)", source)
    form = "p" if paired else ""
    assert calls == [f"vmcu_gemm{tile}{form}_{k}narrow_b{bits}_run" for k in ("", "k48_", "k40_", "k64_")
                     for tile in ("2x2", "1x2")]


@needs_qemu
@pytest.mark.parametrize("fuse", [False, True], ids=["gemm", "chain"])
def test_paired_filters_outside_the_gemm_assembly_on_cortex_m4(fuse, tmp_path, monkeypatch):
    """1x1 layers whose fused ReLU6 clamps short of int8's range, a requantization the GEMM assembly
    does not take: the C around their paired filters (`paired_weights.py`) calls the dot products'
    paired assembly rows (vmcu_dot2x4p, 2x2p and 1x2p_s16_s8_run: rows of 16 to 48 inputs, a row's odd
    last pixel), bit-exact with TFLite Micro; and in about as many instructions as the same layers over
    plain rows (within 1 %: the C around the calls compiles a little differently; paired rows read
    four inputs at a time in C took a tenth more)."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 0.0)
    model = tmp_path / "clamped.tflite"
    model.write_bytes(conv_chain(channels=(16, 48, 32, 40, 8), hw=5, activation=3, spread=True))
    counts = []
    for paired in (True, False):
        if not paired:
            monkeypatch.setattr(paired_weights, "pairs_weights", lambda p: False)
        work = tmp_path / f"run-{paired}"
        result = validate(model, M4, seed=5, work=work, fuse=fuse)
        assert result.status == 0 and result.matches_reference
        assert result.matches_tflm is (True if HAVE_TFLM else None)
        source = "".join(path.read_text() for path in (work / "model").glob("*.c"))
        assert ("_paired(" in source) is paired and "vmcu_clamp(" in source
        counts.append(result.measurements["instructions"])
    assert counts[0] <= 1.01 * counts[1], counts


@needs_qemu
@pytest.mark.parametrize("width, share, bias_bound, form", [(7, 0.0, 40000, "3x2p"), (5, 1.0, 2000, "3x2w"),
                                                           (7, 0.0, 2000, "3x2")],
                         ids=["paired-rows-b32", "int16-rows-b16", "int8-rows-b16"])
def test_rows_end_in_tiles_of_three_on_cortex_m4(width, share, bias_bound, form, tmp_path, monkeypatch):
    """A chain of depthwise-separable blocks over rows of 7 and 5 pixels: each stage's row ends in a
    tile of three (a depthwise pair and a pixel alone, then each 1x1 layer's three pixels in one call
    of vmcu_gemm3x2[w|p]_k<len>_narrow_b*_run), its int8 filters paired (`paired_weights.py`) or in
    plain rows, or int16 (widened) ones, 32- or 16-bit biases; bit-exact with TFLite Micro."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", share)
    if form == "3x2":
        monkeypatch.setattr(paired_weights, "pairs_weights", lambda p: False)
    model = tmp_path / "separable.tflite"
    model.write_bytes(separable_blocks(width=width, bias_bound=bias_bound))
    result = validate(model, M4, seed=5, work=tmp_path / "run", fuse=True)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    bits = 16 if bias_bound < 32768 else 32
    assert sorted(re.findall(r"vmcu_gemm3x2\w*_run", source)) == [f"vmcu_gemm{form}_k{k}_narrow_b{bits}_run"
                                                                  for k in (16, 24)]


@needs_qemu
@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "unfused"])
def test_gemm_rows_of_8_to_80_inputs_run_unrolled_on_cortex_m4(fuse, tmp_path, monkeypatch):
    """1x1 layers of 16, 24, 32, 8, 16 and 80 input channels over 25 pixels, as GEMMs and as a fused
    chain's layers: each row length has its unrolled assembly loop (vmcu_gemm2x2p_k<len>_narrow_b*_run
    over the paired filters, the pair's pointers in registers; int8 filters: no int16 copies), and so
    does a row's last tile: the GEMMs' 25th pixel alone (vmcu_gemm1x2p_k<len>_...), each chain row's
    last three pixels together (vmcu_gemm3x2p_k<len>_...; the fused graph keeps the 8 -> 16 layer
    apart); bit-exact with TFLite Micro."""
    monkeypatch.setattr(widened_weights, "WIDENED_SHARE", 0.0)
    model = tmp_path / "gemm_rows.tflite"
    model.write_bytes(conv_chain(channels=(16, 24, 32, 8, 16, 80, 16), hw=5, bias_bound=40000, spread=True))
    result = validate(model, M4, seed=4, work=tmp_path / "run", fuse=fuse)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    lengths = {int(k) for k in re.findall(r"vmcu_gemm2x2p_k(\d+)_narrow_b32_run\(&tile\)", source)}
    assert lengths == {8, 16, 24, 32, 80}
    triples = {16, 24, 32, 80} if fuse else set()  # fused, all but the 8 -> 16 layer (a GEMM step of its own)
    assert {int(k) for k in re.findall(r"vmcu_gemm3x2p_k(\d+)_narrow_b32_run\(&tile\)", source)} == triples
    assert {int(k) for k in re.findall(r"vmcu_gemm1x2p_k(\d+)_narrow_b32_run\(&tile\)", source)} == lengths - triples


@needs_qemu
@pytest.mark.parametrize("fuse, bias_bound, activation, unrolled, looped", [
    (True, 40000, 0, {8, 16, 24, 32, 40, 48, 64, 80, 96, 120, 144}, {36, 44, 136}),
    (False, 2000, 3, {8, 16, 32, 48, 64, 96, 144}, {136})], ids=["fused-b32", "unfused-b16-relu6"])
def test_gemm_groups_run_in_helium_assembly_on_cortex_m55(fuse, bias_bound, activation, unrolled, looped,
                                                          tmp_path):
    """1x1 layers of 16, 24, 32, 8, 16, 80, 96, 48, 40, 64, 36, 44, 120, 144 and 136 input channels
    over 25 pixels, as a fused chain's layers and as GEMMs: the tiles of two pixels run their groups
    of four channels in the Helium assembly: rows of up to 96 inputs, a multiple of 8, and the wide
    ones (120, 144) in the loop unrolled for their length (vmcu_gemm_mve_k<len>_b*_run: both pixels'
    sums in core registers, the last 8 inputs under a predicate), the others in the tail-predicated
    one (vmcu_gemm_mve_b*_run: 36 and 44 end inside a vector); 16- and 32-bit biases, a clamp to
    ReLU6's bounds; bit-exact with the reference and TFLite Micro. (A GEMM whose segment ends inside
    a group, 24 channels as 16 + 8 here, keeps its C loop, as on the DSP path.)"""
    model = tmp_path / "gemm_rows.tflite"
    model.write_bytes(conv_chain(channels=(16, 24, 32, 8, 16, 80, 96, 48, 40, 64, 36, 44, 120, 144, 136, 16), hw=5,
                                 bias_bound=bias_bound, activation=activation))
    result = validate(model, M55, seed=4, work=tmp_path / "run", fuse=fuse)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    bits = 16 if bias_bound < 32768 else 32
    assert {int(k) for k in re.findall(rf"vmcu_gemm_mve_k(\d+)_b{bits}_run\(&tile\)", source)} == unrolled
    assert {int(k) for k in re.findall(rf"(\d+), \d+}};\s*vmcu_gemm_mve_b{bits}_run\(&tile\)", source)} == looped


@needs_qemu
@pytest.mark.parametrize("stem", ["depthwise_block", "kws_like"])
def test_recomputing_chains_on_cortex_m4(stem, tmp_path):
    """With --allow-recompute the chain's first stage keeps no ring: per tile of the depthwise's
    output pixels (6 and 8 here, `LayerChainParams.stage_tile`; the 1x1 layers after it a pair at a time), their
    overlapping windows' first-stage pixels are made again into one register window (two at a time
    where the stage pairs its pixels), the pixels at the input's edges left at the zero point;
    bit-exact with TFLite Micro."""
    model = next(m for m in FIXTURES if m.stem == stem)
    program = compile_model(model, recompute=True)
    assert any(f.fused and f.recompute for f in program.plan.fusion)
    result = validate_program(program, model.read_bytes(), M4, seed=3, work=tmp_path / "run")
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)


@needs_qemu
def test_dsp_tuned_gemms_widened_once_run_on_cortex_m55(tmp_path):
    """The fixture's unfused 1x1 layers widen their rows once for all their output segments (the
    `dsp` tuning), with the input offset in the bias; on the Cortex-M55 those dot products read the
    widened copy, not the int8 rows the segments' stores overwrite: bit-exact with TFLite Micro."""
    model = next(m for m in FIXTURES if m.stem == "depthwise_block")
    program = compile_model(model, fuse=False, tuning="dsp")
    result = validate_program(program, model.read_bytes(), M55, seed=3, work=tmp_path / "run")
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)


@needs_qemu
def test_helium_pairs_a_group_of_four_in_one_pass_on_cortex_m55(tmp_path):
    """The mixed int8/int16 fixture's depthwise layer runs in place over planes of four channels: on
    the Cortex-M55 each kernel row of a pixel pair is one pass over its columns with both pixels'
    four lanes in a vector each (vmcu_mac4x2_row_s8_mve), the pair requantized as vectors; bit-exact
    with the reference and TFLite Micro. (MCUNet-VWW1's 7x7 layers of stride 2 take the same form:
    BENCHMARKS.md, Cores.)"""
    model = next(m for m in FIXTURES if m.stem == "mixed_int8_int16")
    result = validate(model, M55, seed=5, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert "vmcu_mac4x2_row_s8_mve(" in source and "vmcu_requantize4_mve(acc1_v" in source


@needs_qemu
@pytest.mark.parametrize("stem", ["float_io_classifier", "depthwise_block"])
def test_one_channel_planes_pair_their_pixels_on_cortex_m4(stem, tmp_path):
    """Unfused, the planner runs these 3x3 depthwise layers in place with one-channel planes of padded
    rows: two output pixels per kernel row word (vmcu_dot_row2_s8's SXTAB16 / SMLAD / SMLADX), the
    plane's edge pixels too; bit-exact with TFLite Micro."""
    model = next(m for m in FIXTURES if m.stem == stem)
    result = validate(model, M4, seed=3, work=tmp_path / "run", fuse=False)
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert re.search(r"vmcu_dot_row2_s8\(row, taps \+ \(3 \* ky\), 3, offsets", source)  # an interior pair


@needs_qemu
@pytest.mark.parametrize("target", [M4, M55], ids=lambda t: t.name)
def test_negative_and_zero_filter_scales_take_the_narrow_form(target, tmp_path):
    """Channels with a negative filter scale (negated in the tables) and a zero one (encoded to give
    the offset) in a convolution, a depthwise and a pointwise layer, requantized by the narrow form's
    SMMLAR on the Cortex-M4 and its vector form on the Cortex-M55: bit-exact with TFLite Micro."""
    model = tmp_path / "signed_scales_block.tflite"
    model.write_bytes(signed_scales_block())
    result = validate(model, target, seed=5, work=tmp_path / "run")
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert source.count("vmcu_requantize_narrow(") >= 3 and "vmcu_requantize(" not in source


@needs_qemu
def test_m55_adds_residuals_four_lanes_at_a_time(tmp_path):
    """A block with a residual ADD (fused, and the ADD's runtime kernel) on the Cortex-M55, whose ADD
    runs as vectors of four lanes with a predicated tail: bit-exact with TFLite Micro."""
    result = _validate_on(next(m for m in FIXTURES if m.stem == "depthwise_block"), M55, tmp_path)
    listing = subprocess.run(["arm-none-eabi-objdump", "-d", "-m", "armv8.1-m.main", str(tmp_path / "build" / "vmcu_validate")],
                             capture_output=True, text=True, check=True).stdout
    # the ADD's multiplies take one scalar multiplier (the depthwise's requantization a vector of them)
    assert re.search(r"vqrdmulh\.s32\s+q\d+, q\d+, (r\d+|ip|lr|sl|fp)\b", listing), "no vector ADD"
    assert result.measurements["instructions"] > 0


@needs_qemu
@pytest.mark.skipif(not REAL_MODELS, reason="../shared/models is absent")
@pytest.mark.parametrize("model, target", [(m, M4) for m in REAL_MODELS if m.stem != "mcunet-320kb-1mb_imagenet"]
                         + [(m, M7) for m in SMALL_REAL_MODELS], ids=_id)
def test_real_model(model, target, tmp_path, shared_plans):
    """Every shared model on the Cortex-M4 (MCUNet-320KB on the STM32F405's, the same core and code:
    tests/c/test_models_c.py); on the M7 (the M4's instruction set and the same C, compiled for its
    own pipeline) those under 400 KB, enough to run each kernel kind there: benchmarks/cores.py runs
    every model on every core, bit-exact, where figures are made."""
    _validate_on(model, target, tmp_path)


@needs_qemu
@pytest.mark.parametrize("target", [M4, M55], ids=_id)
@pytest.mark.parametrize("model", HEADED, ids=_id)
def test_real_model_without_its_head(model, target, tmp_path):
    """KWS's softmax saturates (10 or 11 of its 12 outputs at -128 for every random input tried),
    person detection's and VWW's outputs are two classes: a wrong kernel can leave them as they are
    (the GEMM assembly's rounding made off by one, 2 * offset - 1, passes the whole KWS model with
    seeds 0 and 3 and fails its logits). The models cut before their heads (`without_head`: KWS's 12
    logits, the 256 and 160 features before the two-class layers) are bit-exact with the reference
    and TFLite Micro on the two cores whose kernels are written for them, and what they compare is
    spread over many values."""
    cut = tmp_path / f"{model.stem}-cut.tflite"
    cut.write_bytes(without_head(model.read_bytes()))
    result = _validate_on(cut, target, tmp_path / "run")
    values = np.concatenate([np.asarray(o).view(np.int8).astype(np.int32) for o in result.outputs])
    assert len(set(values.tolist())) >= 8 and np.mean(np.abs(values) < 127) >= 0.25, values


@needs_qemu
@pytest.mark.skipif(not KWS, reason="../shared/models/mlperf-kws-dscnn.tflite is absent")
def test_kws_on_stm32f405(tmp_path, shared_plans):
    result = _validate_on(KWS[0], STM32, tmp_path)
    assert result.measurements["ram_total_bytes"] <= STM32_RAM


@needs_qemu
def test_profile_counts_every_kernel_call(tmp_path):
    """--profile: one count per step, together the whole run but the loop around the calls."""
    model = tmp_path / "profiled.tflite"
    model.write_bytes(conv_chain(channels=(3, 16, 8, 4), hw=12))
    result = validate(model, M4, seed=3, work=tmp_path / "build", fuse=False, profile=True)
    program = compile_model(model, fuse=False)  # one step per layer (fused, they are one chain)
    counts, total = result.step_instructions, result.measurements["instructions"]
    assert len(counts) == len(program.steps) == 3
    assert all(count > 0 for count in counts)
    assert abs(sum(counts) - total) <= 0.02 * total, (counts, total)
    lines = format_profile(vmcu_tflite.convert(model, fuse=False).steps, counts)
    assert len(lines) == 1 + len(program.steps)
    assert lines[1].split()[:3] == ["0", "CONV_2D", "CONV_2D#0"]
    assert lines[1].split()[4] == f"{counts[0]:,}"


def test_profile_needs_a_qemu_target(chain_model):
    with pytest.raises(UsageError, match="QEMU"):
        validate(chain_model, HOST, profile=True)


@needs_qemu
@pytest.mark.parametrize("target", [STM32, M0], ids=_id)
def test_too_big_for_the_board_is_refused_before_building(target, tmp_path):
    """A 128 KB activation (64x64x32) cannot fit 128 KB of SRAM, nor 16 KB: refused in one line that
    says by how much, before anything is built."""
    model = tmp_path / "big.tflite"
    model.write_bytes(conv_chain(channels=(32, 32), hw=64))
    with pytest.raises(BudgetError, match=rf"does not fit {target.name}'s {target.ram_bytes:,} bytes of RAM: .* "
                                          r"need [\d,]+, [\d,]+ too many") as refused:
        validate(model, target, work=tmp_path / "work", compare_tflm=False)
    assert "\n" not in str(refused.value)
    assert not (tmp_path / "work" / "build").exists()


@needs_qemu
def test_a_model_over_the_boards_flash_fails_to_link(tmp_path):
    """1x1 convolutions with 300 KB of weights fit the micro:bit's RAM, not its 256 KB of flash."""
    model = tmp_path / "heavy.tflite"
    model.write_bytes(conv_chain(channels=(256, 384, 512), hw=1))
    with pytest.raises(BudgetError, match=r"does not fit qemu-cortex-m0's flash: \d+ bytes too many"):
        validate(model, M0, work=tmp_path / "work", compare_tflm=False)


def test_missing_tools_one_line_error(monkeypatch, chain_model):
    monkeypatch.setattr(targets_module.shutil, "which", lambda tool: None)
    with pytest.raises(UsageError) as error:
        validate(chain_model, M4)
    assert "\n" not in str(error.value)
    assert "qemu-system-arm" in str(error.value) and "arm-none-eabi-gcc" in str(error.value)


# --- the runtime's contract, on the host -------------------------------------------------------

def test_pool_one_byte_short_is_refused(chain_model, tmp_path):
    from vmcu_reference.inputs import random_inputs
    program = compile_model(chain_model)
    status, outputs, _ = build_and_run(program, random_inputs(program.graph, 0), HOST, tmp_path, pool_shrink=1)
    assert status == 1  # VMCU_ERROR_POOL_TOO_SMALL
    assert outputs == []


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("model", [m for m in FIXTURES if m.stem == "conv_stack"] + KWS, ids=_id)
def test_conversion_is_deterministic(model, tmp_path):
    """Two conversions of one model write the same files, byte for byte (runtime copy included)."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write_project(compile_model(model), tmp_path / name)
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert sorted(first) == sorted(second)
    assert [f for f in first if first[f] != second[f]] == []


@pytest.mark.parametrize("target", [pytest.param(M4, marks=needs_qemu), pytest.param(M7, marks=needs_qemu),
                                    pytest.param(RISCV, marks=needs_riscv)], ids=_id)
def test_detection_decoding_on_the_board_libm(target, tmp_path):
    """TFLite_Detection_PostProcess decodes boxes in double with exp(): on the boards that is
    newlib's exp (soft double on the M4) or picolibc's (RISC-V), in TFLite Micro glibc's. With
    nothing below the score threshold and no IoU above 1, all 200 decoded boxes are outputs, their
    exp arguments spread over [-11.5, 11.4]: every one bit-exact, no tolerance."""
    from tests.ops.test_op_detection_postprocess import build
    model, _ = build(200, 1, box_scale=0.09, seed=8, options=dict(
        max_detections=200, nms_score_threshold=0.0, nms_iou_threshold=1.0, h_scale=1.0, w_scale=1.0))
    path = tmp_path / "detection.tflite"
    path.write_bytes(model)
    result = validate(path, target, seed=3, work=tmp_path / "build")
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    program = compile_model(model)
    from vmcu_reference.inputs import random_inputs
    from vmcu_reference.interpreter import Interpreter
    outputs = Interpreter(program).run(random_inputs(program.graph, 3)).outputs
    assert outputs[3][0] == 200  # every box decoded is compared


@needs_qemu
@pytest.mark.parametrize("fuse", [False, True], ids=["gemm", "chain"])
def test_dsp_tuned_paired_filters_run_bit_exact_on_cortex_m55(fuse, tmp_path):
    """A model converted with the `dsp` tuning (its 1x1 filters paired, `paired_weights.py`) built for
    the Cortex-M55: the Helium GEMM assembly and dot products over the int8 source read plain rows, so
    the paired layers widen their inputs and keep the C that follows their layout there (GEMM steps and
    a fused chain); bit-exact with the reference and TFLite Micro."""
    model = tmp_path / "paired.tflite"
    model.write_bytes(conv_chain(channels=(16, 96, 48, 8), hw=5, spread=True))
    program = compile_model(model, fuse=fuse, tuning="dsp")
    layers = [layer for s in program.steps for layer in getattr(s.params, "layers", [s.params])]
    assert any(getattr(layer, "paired_weights", False) for layer in layers)
    result = validate_program(program, model.read_bytes(), M55, seed=6, work=tmp_path / "run")
    assert result.status == 0 and result.matches_reference and result.matches_tflm is (True if HAVE_TFLM else None)
    source = "".join(path.read_text() for path in (tmp_path / "run" / "model").glob("*.c"))
    assert "vmcu_gemm_mve_" not in source
