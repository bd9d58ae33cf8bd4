"""Build small TFLite flatbuffers in tests, without TensorFlow.

Uses the flatbuffer object API that ships with `tflite-micro` (a test dependency). A test
describes tensors and ops; `ModelBuilder.build()` returns the model bytes that both TFLite
Micro and our reader load.
"""
from __future__ import annotations

from typing import Any, Sequence

import flatbuffers
from flatbuffers import flexbuffers
import numpy as np
try:
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
except ImportError:  # models/generate.py runs in TensorFlow's environment: the same schema, from TensorFlow
    from tensorflow.lite.python import schema_py_generated as schema

_TYPES = {"float32": schema.TensorType.FLOAT32, "int32": schema.TensorType.INT32,
          "int8": schema.TensorType.INT8, "int16": schema.TensorType.INT16, "uint8": schema.TensorType.UINT8,
          "int64": schema.TensorType.INT64, "bool": schema.TensorType.BOOL, "resource": schema.TensorType.RESOURCE,
          "uint32": schema.TensorType.UINT32, "uint64": schema.TensorType.UINT64, "uint16": schema.TensorType.UINT16}

# op name -> (options class name in the schema, BuiltinOptions union member)
_OPTIONS = {
    "CONV_2D": "Conv2DOptions", "DEPTHWISE_CONV_2D": "DepthwiseConv2DOptions",
    "FULLY_CONNECTED": "FullyConnectedOptions", "ADD": "AddOptions", "MUL": "MulOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions", "MAX_POOL_2D": "Pool2DOptions", "MEAN": "ReducerOptions",
    "PAD": "PadOptions", "PADV2": "PadV2Options", "RESHAPE": "ReshapeOptions", "SQUEEZE": "SqueezeOptions",
    "SOFTMAX": "SoftmaxOptions", "CONCATENATION": "ConcatenationOptions", "LOGISTIC": None,
    "RESIZE_NEAREST_NEIGHBOR": "ResizeNearestNeighborOptions", "TRANSPOSE": "TransposeOptions",
    "QUANTIZE": "QuantizeOptions", "DEQUANTIZE": "DequantizeOptions", "TANH": None,
    "SHAPE": "ShapeOptions", "STRIDED_SLICE": "StridedSliceOptions", "PACK": "PackOptions", "GATHER": "GatherOptions",
    "BROADCAST_TO": "BroadcastToOptions", "ABS": None, "RELU": None, "RELU6": None, "RELU_N1_TO_1": None,
    "LEAKY_RELU": "LeakyReluOptions", "HARD_SWISH": "HardSwishOptions", "SUB": "SubOptions",
    "MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions", "PRELU": None,
    "SPLIT": "SplitOptions", "SPLIT_V": "SplitVOptions", "RESIZE_BILINEAR": "ResizeBilinearOptions",
    "TILE": "TileOptions", "REDUCE_MAX": "ReducerOptions", "L2_NORMALIZATION": "L2NormOptions",
    "LOG_SOFTMAX": "LogSoftmaxOptions", "TRANSPOSE_CONV": "TransposeConvOptions", "NEG": None,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": "UnidirectionalSequenceLSTMOptions", "SVDF": "SVDFOptions",
    "UNIDIRECTIONAL_SEQUENCE_RNN": "SequenceRNNOptions", "UNPACK": "UnpackOptions", "EXPAND_DIMS": "ExpandDimsOptions",
    "CUSTOM": None, "CALL_ONCE": "CallOnceOptions", "VAR_HANDLE": "VarHandleOptions",
    "READ_VARIABLE": "ReadVariableOptions", "ASSIGN_VARIABLE": "AssignVariableOptions", "WHILE": "WhileOptions",
    "IF": "IfOptions", "BATCH_MATMUL": "BatchMatMulOptions", "CAST": "CastOptions", "DIV": "DivOptions",
    "LESS": "LessOptions",
}


def _camel(name: str) -> str:
    return name[0].lower() + "".join(p.title() for p in name.split("_"))[1:]


class ModelBuilder:
    """Accumulates tensors and ops of a subgraph (several with `next_subgraph`)."""

    def __init__(self) -> None:
        self._tensors: list[Any] = []
        self._buffers: list[Any] = [schema.BufferT()]  # buffer 0 is the empty sentinel
        self._ops: list[Any] = []
        self._codes: list[tuple[str, str | None]] = []  # (operator, custom_code)
        self._finished: list[Any] = []  # the subgraphs before this one
        self.inputs: list[int] = []
        self.outputs: list[int] = []

    def next_subgraph(self) -> int:
        """Finish the subgraph being built and start another (TFLite Micro's CALL_ONCE, WHILE and IF
        run those by index); operator codes and buffers stay shared. Returns the new one's index."""
        self._finished.append(self._subgraph())
        self._tensors, self._ops, self.inputs, self.outputs = [], [], [], []
        return len(self._finished)

    def tensor(self, shape: Sequence[int], dtype: str = "int8", scale: float | Sequence[float] | None = None,
               zero_point: int | Sequence[int] = 0, data: np.ndarray | None = None, axis: int = 0,
               name: str | None = None, shape_signature: Sequence[int] | None = None,
               variable: bool = False) -> int:
        """Add a tensor; constants get `data`, state kept between runs is a `variable`. Returns its index."""
        t = schema.TensorT()
        t.shape = list(shape)
        t.isVariable = variable
        if shape_signature is not None:
            t.shapeSignature = list(shape_signature)
        t.type = _TYPES[dtype]
        t.name = (name or f"t{len(self._tensors)}").encode()
        if scale is not None:
            q = schema.QuantizationParametersT()
            q.scale = [float(s) for s in np.atleast_1d(scale)]
            q.zeroPoint = [int(z) for z in np.atleast_1d(zero_point)]
            if len(q.zeroPoint) == 1 and len(q.scale) > 1:
                q.zeroPoint = q.zeroPoint * len(q.scale)
            q.quantizedDimension = axis
            t.quantization = q
        if data is not None:
            buf = schema.BufferT()
            buf.data = np.ascontiguousarray(data, dtype=dtype).tobytes()
            t.buffer = len(self._buffers)
            self._buffers.append(buf)
        else:
            t.buffer = 0
        self._tensors.append(t)
        return len(self._tensors) - 1

    def const(self, data: np.ndarray, dtype: str | None = None, **quant) -> int:
        data = np.asarray(data)
        return self.tensor(data.shape, dtype or str(data.dtype), data=data, **quant)

    def op(self, kind: str, inputs: Sequence[int], outputs: Sequence[int], custom_code: str | None = None,
           custom_options: dict[str, Any] | None = None, **options: Any) -> None:
        """Add an operator; options use schema field names in snake_case (stride_w, padding, ...); a
        CUSTOM operator names its kernel with `custom_code` (TFLite_Detection_PostProcess, ...) and
        gets `custom_options` as the flexbuffer map its kernel's Init reads."""
        if (kind, custom_code) not in self._codes:
            self._codes.append((kind, custom_code))
        o = schema.OperatorT()
        o.opcodeIndex = self._codes.index((kind, custom_code))
        o.inputs = list(inputs)
        o.outputs = list(outputs)
        if custom_options is not None:
            o.customOptions = list(flexbuffers.Dumps(custom_options))
        class_name = _OPTIONS[kind]
        if class_name is not None:
            opts = getattr(schema, class_name + "T")()
            for key, value in options.items():
                attr = _camel(key)
                if not hasattr(opts, attr):
                    raise AttributeError(f"{class_name} has no field {key}")
                setattr(opts, attr, value)
            o.builtinOptionsType = getattr(schema.BuiltinOptions, class_name)
            o.builtinOptions = opts
        self._ops.append(o)

    def _subgraph(self) -> Any:
        sub = schema.SubGraphT()
        sub.tensors = self._tensors
        sub.operators = self._ops
        sub.inputs = list(self.inputs)
        sub.outputs = list(self.outputs)
        return sub

    def build(self, subgraphs: int = 1) -> bytes:
        """The model's bytes; `subgraphs` > 1 repeats the last subgraph (to test that we refuse it)."""
        model = schema.ModelT()
        model.version = 3
        model.description = b"vmcu-tflite test model"
        codes = []
        for kind, custom_code in self._codes:
            c = schema.OperatorCodeT()
            value = getattr(schema.BuiltinOperator, kind)
            c.builtinCode = value
            c.deprecatedBuiltinCode = min(value, 127)
            c.version = 1
            c.customCode = None if custom_code is None else custom_code.encode()
            codes.append(c)
        model.operatorCodes = codes
        model.subgraphs = self._finished + [self._subgraph()] * subgraphs
        model.buffers = self._buffers
        return pack(model)


def unpack(data: bytes):
    """A model's bytes as the schema's object tree (schema.ModelT), for a test to change."""
    return schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(data, 0))


def pack(model) -> bytes:
    """The schema's object tree (schema.ModelT) as a model's bytes."""
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def random_weights(rng: np.random.Generator, shape: Sequence[int]) -> np.ndarray:
    return rng.integers(-127, 128, size=shape, dtype=np.int64).astype(np.int8)


def random_bias(rng: np.random.Generator, n: int, bound: int = 2000) -> np.ndarray:
    return rng.integers(-bound, bound + 1, size=n, dtype=np.int64).astype(np.int32)
