"""Values crossing the model's boundary: the application's dtype outside, the tensor's in the pool.

A model whose graph input passes through a QUANTIZE (float32 -> int8 or int16, or uint8 -> int8 that
only moves the zero point by 128) and whose output through a DEQUANTIZE or the reverse QUANTIZE keeps
int8 (a 16x8 model: int16) in the pool; those boundary ops become this conversion, done by the application in C (the
generated header says how) and here in the reference. Any other port (an audio front end's int16
input, an int32 output) holds the application's values as they are, little-endian in the pool.
"""
from __future__ import annotations

import numpy as np

from vmcu_tflite.graph import IOPort, Tensor

from .ops.op_dequantize import dequantize
from .ops.op_quantize import quantize_float


def to_pool(port: IOPort, tensor: Tensor, value: np.ndarray) -> np.ndarray:
    """The application's input value as the pool holds it (an array of the tensor's dtype)."""
    if port.dtype == "float32" and tensor.dtype != "float32":
        return quantize_float(value, tensor.scale, tensor.zero_point, tensor.dtype)
    if port.dtype == "uint8" and tensor.dtype == "int8":  # uint8 -> int8 QUANTIZE, one scale: u - 128 (top bit flipped)
        return (np.asarray(value, dtype=np.uint8) ^ 0x80).view(np.int8)
    return np.asarray(value).astype(tensor.dtype)


def from_pool(port: IOPort, tensor: Tensor, data: np.ndarray) -> np.ndarray:
    """The output in the pool (an array of the tensor's dtype) as the application receives it."""
    if port.dtype == "float32" and tensor.dtype != "float32":
        return dequantize(data, tensor.scale, tensor.zero_point)
    if port.dtype == "uint8" and tensor.dtype == "int8":
        return np.asarray(data, dtype=np.int8).view(np.uint8) ^ 0x80
    return data


def as_bytes(values: np.ndarray) -> np.ndarray:
    """A tensor's values as the pool's bytes: little-endian, row-major, one int8 per byte."""
    values = np.ascontiguousarray(values)
    return values.astype(values.dtype.newbyteorder("<")).reshape(-1).view(np.int8)


def from_bytes(data: np.ndarray, tensor: Tensor) -> np.ndarray:
    """The pool's bytes of `tensor` as its values, in its shape."""
    dtype = np.dtype(tensor.dtype).newbyteorder("<")
    return np.ascontiguousarray(data, dtype=np.int8).view(dtype).astype(tensor.dtype).reshape(tensor.shape)
