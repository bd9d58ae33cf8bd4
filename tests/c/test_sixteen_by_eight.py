"""16x8 models (int16 activations) through the generated C: the sanitized host build and a Cortex-M4
under QEMU, bit-exact with the reference interpreter and TFLite Micro (LiteRT for TILE).

- `end_to_end`: a float input quantized to int16, PAD, AVERAGE_POOL_2D, MEAN, dequantized to float.
- `movement`: an int16 input through TRANSPOSE, SPLIT, SPLIT_V, PADV2, CONCATENATION, PACK, UNPACK,
  STRIDED_SLICE, MAX_POOL_2D and QUANTIZEs between int8, int16 and int32, to int16 and int32 outputs.
- `tiled`: an int16 TILE and RESHAPE (LiteRT checks it: TFLite Micro has no TILE).
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
                   b.const(np.array([-1], np.int16), **q)], [padded])
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


MODELS = {"end_to_end": end_to_end, "movement": movement, "tiled": tiled}


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sixteen_by_eight")
    paths = {}
    for name, make in MODELS.items():
        paths[name] = folder / f"{name}.tflite"
        paths[name].write_bytes(make())
    return paths


def test_the_models_run_int16_kernels():
    kinds = {s.kernel for make in MODELS.values() for s in compile_model(make()).plan.steps}
    assert {"REQUANTIZE", "AVERAGE_POOL_2D_S16", "MAX_POOL_2D_S16", "MEAN_S16", "PAD", "PADV2", "TRANSPOSE",
            "SPLIT", "SPLIT_V", "CONCATENATION", "PACK", "UNPACK", "STRIDED_SLICE", "TILE"} <= kinds, kinds
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
