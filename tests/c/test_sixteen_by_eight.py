"""16x8 models (int16 activations) through the generated C: the sanitized host build and a Cortex-M4
under QEMU, bit-exact with the reference interpreter and TFLite Micro (LiteRT for TILE).

- `end_to_end`: a float input quantized to int16, PAD, AVERAGE_POOL_2D, MEAN, dequantized to float.
- `movement`: an int16 input through TRANSPOSE, SPLIT, SPLIT_V, PADV2, CONCATENATION, PACK, UNPACK,
  STRIDED_SLICE, MAX_POOL_2D and QUANTIZEs between int8, int16 and int32, to int16 and int32 outputs.
- `tiled`: an int16 TILE and RESHAPE (LiteRT checks it: TFLite Micro has no TILE).
- one single-operator model per operator with an int16 kernel (`SINGLE`).
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.tflite_builder import ModelBuilder
from vmcu_tflite.pipeline import compile_model
from vmcu_tflite.validate.run import validate
from vmcu_tflite.validate.targets import QEMU_TOOLS, SANITIZED_HOST, TARGETS

HAVE_QEMU = all(shutil.which(tool) for tool in ("cmake", *QEMU_TOOLS))


def end_to_end() -> bytes:
    """float [1, 9, 10, 4] -> int16 -> PAD -> AVERAGE_POOL_2D 3x3 / 2 SAME -> MEAN over H, W -> float."""
    b = ModelBuilder()
    q = dict(scale=0.0009, zero_point=0)
    x = b.tensor((1, 9, 10, 4), "float32", name="x")
    x16 = b.tensor((1, 9, 10, 4), "int16", **q)
    padded = b.tensor((1, 11, 11, 4), "int16", **q)
    pooled = b.tensor((1, 6, 6, 4), "int16", **q)
    mean = b.tensor((1, 4), "int16", scale=0.0004, zero_point=0)
    y = b.tensor((1, 4), "float32", name="y")
    b.op("QUANTIZE", [x], [x16])
    b.op("PAD", [x16, b.const(np.array([[0, 0], [1, 1], [0, 1], [0, 0]], np.int32))], [padded])
    b.op("AVERAGE_POOL_2D", [padded], [pooled], padding=0, stride_h=2, stride_w=2, filter_height=3, filter_width=3)
    b.op("MEAN", [pooled, b.const(np.array([1, 2], np.int32))], [mean], keep_dims=False)
    b.op("DEQUANTIZE", [mean], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def movement() -> bytes:
    b = ModelBuilder()
    q = dict(scale=0.002, zero_point=0)
    x = b.tensor((2, 4, 6), "int16", **q, name="x")
    t = b.tensor((2, 6, 4), "int16", **q)
    b.op("TRANSPOSE", [x, b.const(np.array([0, 2, 1], np.int32))], [t])
    halves = [b.tensor((2, 3, 4), "int16", **q) for _ in range(2)]
    b.op("SPLIT", [b.const(np.array([1], np.int32)), t], halves, num_splits=2)
    parts = [b.tensor((2, 3, s), "int16", **q) for s in (1, 3)]
    b.op("SPLIT_V", [halves[0], b.const(np.array([1, 3], np.int32)), b.const(np.array([2], np.int32))], parts,
         num_splits=2)
    padded = b.tensor((2, 3, 4), "int16", **q)
    b.op("PADV2", [parts[0], b.const(np.array([[0, 0], [0, 0], [1, 2]], np.int32)),
                   b.const(np.array([300], np.int16), **q)], [padded])
    joined = b.tensor((2, 3, 8), "int16", **q)
    b.op("CONCATENATION", [padded, halves[1]], [joined], axis=2)
    stacked = b.tensor((2, 3, 2, 8), "int16", **q)
    b.op("PACK", [joined, joined], [stacked], values_count=2, axis=2)
    rows = [b.tensor((2, 2, 8), "int16", **q) for _ in range(3)]
    b.op("UNPACK", [stacked], rows, num=3, axis=1)
    image = b.tensor((1, 2, 2, 8), "int16", **q)
    b.op("RESHAPE", [rows[2], b.const(np.array([1, 2, 2, 8], np.int32))], [image], new_shape=[1, 2, 2, 8])
    pooled = b.tensor((1, 2, 1, 8), "int16", **q)
    b.op("MAX_POOL_2D", [image], [pooled], padding=1, stride_h=1, stride_w=2, filter_height=1, filter_width=2)
    sliced = b.tensor((1, 2, 1, 4), "int16", **q)
    b.op("STRIDED_SLICE", [pooled, *(b.const(np.array(v, np.int32)) for v in ([0, 0, 0, 1], [1, 2, 1, 8],
                                                                              [1, 1, 1, 2]))], [sliced])
    narrow = b.tensor((1, 2, 1, 4), "int8", scale=0.3, zero_point=-5)
    b.op("QUANTIZE", [sliced], [narrow])
    wide = b.tensor((1, 2, 1, 4), "int16", scale=0.004, zero_point=0, name="wide")
    b.op("QUANTIZE", [narrow], [wide])
    out32 = b.tensor((2, 2, 8), "int32", scale=0.0001, zero_point=3, name="out32")
    b.op("QUANTIZE", [rows[0]], [out32])
    b.inputs, b.outputs = [x], [wide, out32]
    return b.build()


def tiled() -> bytes:
    b = ModelBuilder()
    q = dict(scale=0.002, zero_point=0)
    x = b.tensor((3, 5), "int16", **q)
    t = b.tensor((6, 5), "int16", **q)
    b.op("TILE", [x, b.const(np.array([2, 1], np.int32))], [t])
    flat = b.tensor((30,), "int16", **q)
    b.op("RESHAPE", [t, b.const(np.array([30], np.int32))], [flat], new_shape=[30])
    y = b.tensor((30,), "int16", scale=0.001, zero_point=0)
    b.op("QUANTIZE", [flat], [y])
    b.inputs, b.outputs = [x], [y]
    return b.build()


def single(kind: str, in_shape, out_shapes, constants=(), in_dtype="int16", out_dtype="int16", inputs=1,
           constants_first=False, **options) -> bytes:
    """One operator on int16 activations (zero points 0) with constant operands after (or before) them (an
    array, or an array and its quantization)."""
    b = ModelBuilder()
    xs = [b.tensor(in_shape, in_dtype, scale=0.003, zero_point=0) for _ in range(inputs)]
    ys = [b.tensor(s, out_dtype, scale=0.002 if kind == "QUANTIZE" else 0.003,
                   zero_point=-7 if out_dtype == "int8" else 0) for s in out_shapes]
    operands = [b.const(c) if isinstance(c, np.ndarray) else b.const(c[0], **c[1]) for c in constants]
    b.op(kind, operands + xs if constants_first else xs + operands, ys, **options)
    b.inputs, b.outputs = xs, ys
    return b.build()


def _i32(*values) -> np.ndarray:
    return np.array(values, np.int32)


# One model per operator with an int16 kernel: the interpreter, the sanitized host C and the Cortex-M4 each run it
SINGLE = {
    "QUANTIZE int16 -> int8": lambda: single("QUANTIZE", (3, 7), [(3, 7)], out_dtype="int8"),
    "QUANTIZE int8 -> int16": lambda: single("QUANTIZE", (3, 7), [(3, 7)], in_dtype="int8"),
    "QUANTIZE int16 -> int32": lambda: single("QUANTIZE", (3, 7), [(3, 7)], out_dtype="int32"),
    "PAD": lambda: single("PAD", (2, 3, 4), [(3, 5, 4)], [_i32([1, 0], [0, 2], [0, 0])]),
    "PADV2": lambda: single("PADV2", (2, 3), [(2, 6)], [_i32([0, 0], [2, 1]),
                                                             (np.array([-1], np.int16), dict(scale=0.003))]),
    "PADV2 of two unequal bytes": lambda: single("PADV2", (2, 3, 2), [(3, 4, 2)], [
        _i32([0, 1], [1, 0], [0, 0]), (np.array([-12345], np.int16), dict(scale=0.003))]),
    "TRANSPOSE": lambda: single("TRANSPOSE", (2, 3, 4, 5), [(5, 3, 2, 4)], [_i32(3, 1, 0, 2)]),
    "STRIDED_SLICE": lambda: single("STRIDED_SLICE", (4, 6), [(2, 3)], [_i32(3, 0), _i32(0, 6), _i32(-2, 2)]),
    "SPLIT": lambda: single("SPLIT", (4, 6), [(4, 2)] * 3, [_i32(1)], constants_first=True, num_splits=3),
    "SPLIT_V": lambda: single("SPLIT_V", (5, 3), [(2, 3), (3, 3)], [_i32(2, 3), _i32(0)], num_splits=2),
    "CONCATENATION": lambda: single("CONCATENATION", (2, 3), [(2, 9)], inputs=3, axis=1),
    "PACK": lambda: single("PACK", (2, 3), [(2, 2, 3)], inputs=2, values_count=2, axis=1),
    "UNPACK": lambda: single("UNPACK", (2, 3, 4), [(2, 4)] * 3, num=3, axis=1),
    "TILE": lambda: single("TILE", (2, 3), [(4, 9)], [_i32(2, 3)]),
    "AVERAGE_POOL_2D": lambda: single("AVERAGE_POOL_2D", (1, 7, 6, 3), [(1, 4, 3, 3)], padding=0, stride_h=2,
                                      stride_w=2, filter_height=3, filter_width=2),
    # a full block of 16 channels summed through a pointer into the pool and a partial one of 4, edges clipped
    "AVERAGE_POOL_2D of 20 channels": lambda: single("AVERAGE_POOL_2D", (1, 6, 5, 20), [(1, 3, 3, 20)], padding=0,
                                                     stride_h=2, stride_w=2, filter_height=3, filter_width=3),
    "MAX_POOL_2D": lambda: single("MAX_POOL_2D", (2, 5, 5, 2), [(2, 2, 2, 2)], padding=1, stride_h=2, stride_w=2,
                                  filter_height=2, filter_width=3, fused_activation_function=1),
    "MEAN": lambda: single("MEAN", (2, 4, 5, 3), [(2, 3)], [_i32(1, 2)], keep_dims=False),
}

MODELS = {"end_to_end": end_to_end, "movement": movement, "tiled": tiled,
          **{f"single {name}": make for name, make in SINGLE.items()}}


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sixteen_by_eight")
    paths = {}
    for name, make in MODELS.items():
        paths[name] = folder / f"{name.replace(' ', '_').replace('>', '')}.tflite"
        paths[name].write_bytes(make())
    return paths


def test_the_models_run_int16_kernels():
    kinds = {s.kernel for make in MODELS.values() for s in compile_model(make()).plan.steps}
    assert {"REQUANTIZE", "AVERAGE_POOL_2D_S16", "MAX_POOL_2D_S16", "MEAN_S16", "PAD", "PADV2", "PAD_S16",
            "TRANSPOSE", "SPLIT", "SPLIT_V", "CONCATENATION", "PACK", "UNPACK", "STRIDED_SLICE", "TILE"} <= kinds, kinds
    graph = compile_model(end_to_end()).graph
    assert [p.dtype for p in graph.inputs + graph.outputs] == ["float32", "float32"]  # the boundary, folded


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
@pytest.mark.parametrize("planner", ["vmcu", "tensor"])
@pytest.mark.parametrize("name", list(MODELS))
def test_sanitized_host(model_files, name, planner):
    v = validate(model_files[name], SANITIZED_HOST, seed=3, planner=planner)
    assert v.status == 0 and v.matches_reference and v.matches_tflm


@pytest.mark.skipif(not HAVE_QEMU, reason="arm-none-eabi-gcc, qemu-system-arm or cmake missing")
@pytest.mark.parametrize("name", list(MODELS))
def test_qemu_cortex_m4(model_files, name):
    v = validate(model_files[name], TARGETS["qemu-cortex-m4"], seed=4)
    assert v.status == 0 and v.matches_reference and v.matches_tflm
