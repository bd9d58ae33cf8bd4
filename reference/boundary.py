"""Values crossing the model's boundary: the application's dtype outside, int8 in the pool.

A tensor of another type in the pool (the float32 outputs of a detector's post-processing) holds
its values' own bytes: the application reads them as they are (`typed`), no conversion.

A model whose graph input passes through a QUANTIZE (float32 -> int8, or uint8 -> int8 that only
moves the zero point by 128) and whose output through a DEQUANTIZE or the reverse QUANTIZE keeps
int8 in the pool; those boundary ops become this conversion, done by the application in C (the
generated header says how) and here in the reference.
"""
from __future__ import annotations

import numpy as np

from vmcu_tflite.graph import IOPort, Tensor

from .ops.op_dequantize import dequantize
from .ops.op_quantize import quantize_float


def to_pool(port: IOPort, tensor: Tensor, value: np.ndarray) -> np.ndarray:
    """The application's input value as the int8 the pool holds."""
    if port.dtype == "float32":
        return quantize_float(value, tensor.scale, tensor.zero_point)
    if port.dtype == "uint8":  # TFLite's uint8 -> int8 QUANTIZE at the same scale: u - 128 (the top bit flipped)
        return (np.asarray(value, dtype=np.uint8) ^ 0x80).view(np.int8)
    return np.asarray(value).astype(np.int8)


def typed(data: np.ndarray, tensor: Tensor) -> np.ndarray:
    """A tensor's bytes from the pool as its values, in its shape (int8 ones as they are)."""
    if tensor.dtype == "int8":
        return np.asarray(data).reshape(tensor.shape)
    return np.ascontiguousarray(data, dtype=np.int8).reshape(-1).view(np.dtype(tensor.dtype)).reshape(tensor.shape)


def as_bytes(values: np.ndarray, tensor: Tensor) -> np.ndarray:
    """What a step stores for a tensor: int8 values as they are, wider ones as their bytes."""
    if tensor.dtype == "int8":
        return values
    return np.ascontiguousarray(values, dtype=np.dtype(tensor.dtype)).reshape(-1).view(np.int8)


def from_pool(port: IOPort, tensor: Tensor, data: np.ndarray) -> np.ndarray:
    """The output's bytes in the pool as the application receives it."""
    if tensor.dtype != "int8":
        return typed(data, tensor).reshape(port.shape)
    if port.dtype == "float32":
        return dequantize(data, tensor.scale, tensor.zero_point)
    if port.dtype == "uint8":
        return np.asarray(data, dtype=np.int8).view(np.uint8) ^ 0x80
    return data
