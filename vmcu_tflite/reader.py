"""TFLite flatbuffer -> `Graph`, validating up front.

Every reason to refuse a model is found here and reported as a one-line `ModelError`, so later
stages can assume a well-formed int8 graph of supported ops with static shapes.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import tflite
from flatbuffers import flexbuffers

from . import blockers, resources
from .errors import ModelError
from .flatbuffer_check import check_flatbuffer
from .folding import fold_constants
from .graph import Graph, IOPort, Op, Options, Quantization, Tensor
from .model_rules import check_for_litert, check_model, options_type
from .oracle import NOT_IN_TFLM, builtin_code
from .ops import CUSTOM_OPS, SUPPORTED_OPS, activation_types, state_positions

# Every type the schema defines, by its lowercase name: numpy's where one exists (float32, int8,
# ...); the others (string, resource, int4, ...) only ever appear in refusals.
_TENSOR_TYPES = {v: k.lower() for k, v in vars(tflite.TensorType).items() if not k.startswith("_")}
_OP_NAMES = {v: k for k, v in vars(tflite.BuiltinOperator).items() if not k.startswith("_")}
_OPTION_CLASSES = {v: k for k, v in vars(tflite.BuiltinOptions).items() if not k.startswith("_")}
_FILE_IDENTIFIER = b"TFL3"


def read_model(path: str | Path) -> Graph:
    """Read and validate a .tflite file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ModelError(f"cannot read {path}: {err.strerror}") from None
    return parse_model(data, name=path.stem)


def parse_model(data: bytes, name: str = "model") -> Graph:
    """Parse flatbuffer bytes into a validated `Graph`."""
    if len(data) < 8 or data[4:8] != _FILE_IDENTIFIER:
        raise ModelError("not a TFLite model (no 'TFL3' file identifier)")
    try:
        model = tflite.Model.GetRootAsModel(data, 0)
        check_flatbuffer(model)
        graph = _build_graph(model, data, name)
    except ModelError:
        raise
    except Exception as err:  # the flatbuffer library reports corruption as arbitrary exceptions
        raise ModelError(f"corrupt or truncated TFLite flatbuffer ({type(err).__name__} while reading it)") from None
    _check_int8_quantized(graph)
    check_model(graph)
    return graph


SCHEMA_VERSION = 3  # TFLITE_SCHEMA_VERSION: TFLite Micro and LiteRT refuse a model of any other version


def _build_graph(model: tflite.Model, data: bytes, name: str) -> Graph:
    if model.Version() != SCHEMA_VERSION:
        raise ModelError(f"the model has schema version {model.Version()}; TFLite Micro runs version "
                         f"{SCHEMA_VERSION} only")
    if model.SubgraphsLength() == 0:
        raise ModelError("the model has 0 subgraphs; only single-subgraph models are supported")
    subgraph = model.Subgraphs(0)
    ops = tuple(_read_op(model, subgraph.Operators(i), i) for i in range(subgraph.OperatorsLength()))
    # the other subgraphs' operators (CALL_ONCE's initialisation, WHILE's body, ...): an initialisation
    # subgraph of constants is evaluated now (`resources`), the others only named in the refusal
    called = [tuple(_read_op(model, model.Subgraphs(k).Operators(i), i)
                    for i in range(model.Subgraphs(k).OperatorsLength())) for k in range(1, model.SubgraphsLength())]
    tensors = {i: _read_tensor(model, subgraph.Tensors(i), i, data) for i in range(subgraph.TensorsLength())}
    further, init_problems = _init_subgraphs(model, data, ops, called)
    litert = any(op.kind in NOT_IN_TFLM for op in ops)  # the oracle that checks this model: oracle.py
    if litert:
        _check_litert_quantization(subgraph)
        _check_litert_signatures(model)
    for i, op in enumerate(ops):
        _check_intermediates(subgraph.Operators(i), op, tensors)
    for op in ops:
        for t in op.inputs + op.outputs:
            if t >= len(tensors) or t < -1:
                raise ModelError(f"operator {op.kind} at index {op.index} refers to tensor {t}, which does not exist")
    if litert:  # before folding: LiteRT loads and prepares the operators folding takes away
        check_for_litert(tensors, ops)
    inputs = tuple(int(t) for t in subgraph.InputsAsNumpy()) if not subgraph.InputsIsNone() else ()
    outputs = tuple(int(t) for t in subgraph.OutputsAsNumpy()) if not subgraph.OutputsIsNone() else ()
    state = [tensors[i] for i in range(len(tensors)) if subgraph.Tensors(i).IsVariable()]
    dynamic = _dynamic_shapes(subgraph)
    accepted = [k for k, problem in init_problems.items() if not problem]
    ops, tensors, variable_blockers = resources.resolve(ops, tensors, further, accepted, set(inputs) | set(outputs))
    try:
        ops, tensors = fold_constants(ops, tensors, outputs)  # shape arithmetic on constants needs no kernel
    except ModelError:
        if dynamic:  # placeholder sizes explain a folding failure better than the failure itself
            raise ModelError(dynamic) from None
        raise
    _refuse_what_we_cannot_run(ops, tensors, set(inputs) | set(outputs), state, dynamic, called, init_problems,
                               variable_blockers)
    if not inputs or not outputs:
        raise ModelError("the model declares no inputs or no outputs")
    for what, ports in (("input", inputs), ("output", outputs)):
        bad = next((t for t in ports if t not in tensors), None)
        if bad is not None:
            raise ModelError(f"graph {what} {bad} is not a tensor of the model ({len(tensors)} tensors)")
    return Graph(
        name=name,
        tensors=MappingProxyType(tensors),
        ops=ops,
        inputs=tuple(IOPort(t, tensors[t].dtype, tensors[t].shape) for t in inputs),
        outputs=tuple(IOPort(t, tensors[t].dtype, tensors[t].shape) for t in outputs),
    )


def _dynamic_shapes(subgraph: tflite.SubGraph) -> str:
    """A dynamic batch (-1 in dimension 0, as Keras exports) runs at the stored batch, as in TFLite
    Micro; any other dynamic dimension would plan memory for a placeholder size ("" when none)."""
    dynamic = []
    for i in range(subgraph.TensorsLength()):
        tensor = subgraph.Tensors(i)
        signature = tuple(int(d) for d in tensor.ShapeSignatureAsNumpy()) if tensor.ShapeSignatureLength() else ()
        if any(d < 0 for d in signature[1:]):
            dynamic.append((i, _name(tensor), signature))
    if not dynamic:
        return ""
    index, name, signature = dynamic[0]
    more = f" (and {len(dynamic) - 1} more tensors)" if len(dynamic) > 1 else ""
    return (f"tensor {index} '{name}' has a dynamic shape {signature}{more}; only static shapes "
            "(or a dynamic batch) are supported")


def _init_subgraphs(model: tflite.Model, data: bytes, ops: tuple[Op, ...], called: list[tuple[Op, ...]]
                    ) -> tuple[list[resources.Subgraph], dict[int, str]]:
    """Every further subgraph (its tensors read only where CALL_ONCE alone runs it), and for those
    what keeps them from being evaluated ahead of time ("" for none: `resources.init_problem`)."""
    further, problems = [], {}
    roles = blockers.subgraph_roles(ops, called)
    for k, sub_ops in enumerate(called, start=1):
        tensors = {}
        if roles.get(k) and set(roles[k]) == {blockers.INIT_ROLE}:
            sub = model.Subgraphs(k)
            tensors = {i: _read_tensor(model, sub.Tensors(i), i, data) for i in range(sub.TensorsLength())}
            for op in sub_ops:
                if any(t >= len(tensors) or t < -1 for t in op.inputs + op.outputs):
                    raise ModelError(f"operator {op.kind} at index {op.index} of subgraph {k} refers to a tensor "
                                     "that does not exist")
            ports = [int(t) for t in (() if sub.InputsIsNone() else sub.InputsAsNumpy())] + \
                [int(t) for t in (() if sub.OutputsIsNone() else sub.OutputsAsNumpy())]
            if any(not 0 <= t < len(tensors) for t in ports):
                raise ModelError(f"subgraph {k} declares an input or output tensor that does not exist")
            problems[k] = ("reads inputs (CALL_ONCE passes none)" if not sub.InputsIsNone() and sub.InputsLength()
                           else resources.init_problem(resources.Subgraph(sub_ops, tensors)))
        further.append(resources.Subgraph(sub_ops, tensors))
    return further, problems


def _refuse_what_we_cannot_run(ops: tuple[Op, ...], tensors: dict[int, Tensor], boundary: set[int],
                               state: list[Tensor], dynamic: str, called: list[tuple[Op, ...]],
                               init_problems: dict[int, str], variable_blockers: list[str]) -> None:
    """One ModelError naming every capability the model needs and we lack (see `blockers`); `called`
    holds the operators of the subgraphs after the first (those evaluated ahead of time need none)."""
    needed = [() if k in init_problems and not init_problems[k] else sub_ops for k, sub_ops in enumerate(called, 1)]
    found = [blockers.unsupported_operators(ops, SUPPORTED_OPS | resources.RESOURCE_OPS, needed),
             blockers.subgraphs(ops, called, init_problems),
             *variable_blockers, blockers.variable_tensors(state, ops, SUPPORTED_OPS, state_positions), dynamic,
             *blockers.activation_types(ops, tensors, boundary, SUPPORTED_OPS, state_positions, activation_types)]
    found = [f for f in found if f]
    if not found:
        return
    if found[0].startswith("unsupported operator"):
        found.append(f"supported: {', '.join(sorted(SUPPORTED_OPS))}")
    raise ModelError("; ".join(found))


def _read_op(model: tflite.Model, op: tflite.Operator, index: int) -> Op:
    if not 0 <= op.OpcodeIndex() < model.OperatorCodesLength():  # the accessor does not check
        raise ModelError(f"operator at index {index} has opcode {op.OpcodeIndex()}; the model defines "
                         f"{model.OperatorCodesLength()}")
    code = model.OperatorCodes(op.OpcodeIndex())
    builtin = builtin_code(code)
    kind = _OP_NAMES.get(builtin, f"BUILTIN_{builtin}")
    if kind == "CUSTOM":  # custom_code is optional in the schema
        custom = (code.CustomCode() or b"").decode(errors="replace")
        kind = custom if custom in CUSTOM_OPS else f"CUSTOM({custom})"
    return Op(
        index=index,
        kind=kind,
        inputs=tuple(int(t) for t in op.InputsAsNumpy()) if not op.InputsIsNone() else (),
        outputs=tuple(int(t) for t in op.OutputsAsNumpy()) if not op.OutputsIsNone() else (),
        options=_read_custom_options(op, kind, index) if kind in CUSTOM_OPS else _read_options(op, kind),
    )


def _read_custom_options(op: tflite.Operator, kind: str, index: int) -> Options:
    """A custom operator's options: the flexbuffer map in its custom_options, as TFLite Micro's
    kernels read it in Init (a missing key is the op's prepare to refuse, not a zero)."""
    raw = op.CustomOptionsAsNumpy().tobytes() if not op.CustomOptionsIsNone() else b""
    if not raw:
        return Options({})
    try:
        values = flexbuffers.Loads(raw)
    except Exception:  # the flexbuffer reader reports corruption as arbitrary exceptions
        raise ModelError(f"operator {kind} at index {index}: its custom options are not a valid flexbuffer") from None
    if not isinstance(values, dict):
        raise ModelError(f"operator {kind} at index {index}: its custom options are a flexbuffer "
                         f"{type(values).__name__}, not a map")
    keys = [key.encode() for key in values]  # in the order stored: the map's sorted key vector
    if any(a >= b for a, b in zip(keys, keys[1:])):  # flexbuffers looks a key up by binary search
        raise ModelError(f"operator {kind} at index {index}: its custom options' keys are not in sorted order, so "
                         "TFLite Micro's flexbuffer lookup would miss some of them")
    return Options(values)


def _check_intermediates(op: tflite.Operator, read: Op, tensors: dict[int, Tensor]) -> None:
    """An operator's intermediate tensors (an LSTM's: the converter records scales on them) hold no
    data: TFLite Micro refuses one with bytes, and nothing here reads them."""
    for t in (int(t) for t in op.IntermediatesAsNumpy()) if op.IntermediatesLength() else ():
        if t not in tensors:
            raise ModelError(f"operator {read.kind} at index {read.index} has intermediate tensor {t}, which does "
                             "not exist")
        if tensors[t].num_elements != 0:
            raise ModelError(f"operator {read.kind} at index {read.index}: intermediate tensor {t} "
                             f"'{tensors[t].name}' has shape {tensors[t].shape}; TFLite Micro supports only empty "
                             "intermediates")
        if not tensors[t].holds_elements:  # empty or not, TFLite Micro cannot size it
            raise ModelError(f"operator {read.kind} at index {read.index}: intermediate tensor {t} "
                             f"'{tensors[t].name}' has type {tensors[t].dtype.upper()}, which TFLite Micro cannot "
                             "allocate")


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _read_options(op: tflite.Operator, kind: str) -> Options:
    """All scalar and vector fields of the op's builtin options table, in snake_case, and TFLite
    Micro's zeros for every field of the op's options type. A table of another operator's type is
    ignored, as TFLite Micro ignores it (its zeros then apply)."""
    expected = options_type(kind)
    zeros = _zeros(expected) if expected else {}
    class_name = _OPTION_CLASSES.get(op.BuiltinOptionsType())
    table = op.BuiltinOptions()
    if class_name in (None, "NONE") or table is None or class_name != (expected or class_name):
        return Options({}, zeros)
    options = getattr(tflite, class_name)()
    options.Init(table.Bytes, table.Pos)
    fields = {}
    for attr in _accessors(class_name):
        if hasattr(options, attr + "AsNumpy"):
            is_none = getattr(options, attr + "IsNone", lambda: False)()
            fields[_snake(attr)] = () if is_none else tuple(int(v) for v in getattr(options, attr + "AsNumpy")())
        else:
            fields[_snake(attr)] = getattr(options, attr)()
    return Options(fields, zeros)


@functools.lru_cache(maxsize=None)
def _accessors(class_name: str) -> tuple[str, ...]:
    """The field accessors of a `tflite` options class (CamelCase; CALL_ONCE's InitSubgraphIndex is
    one, the Init method is not)."""
    cls = getattr(tflite, class_name)
    return tuple(a for a in dir(cls) if a[0].isupper() and a != "Init" and not a.startswith("GetRootAs")
                 and not a.endswith(("BufferHasIdentifier", "Length", "IsNone", "AsNumpy")))


@functools.lru_cache(maxsize=None)
def _zeros(class_name: str) -> dict[str, Any]:
    """Every field of an options type at TFLite Micro's zero (vectors empty)."""
    cls = getattr(tflite, class_name)
    return {_snake(a): () if hasattr(cls, a + "AsNumpy") else 0 for a in _accessors(class_name)}


def _name(tensor: tflite.Tensor) -> str:
    """The tensor's name; the schema makes it optional, and a tensor without one is valid."""
    return (tensor.Name() or b"").decode(errors="replace")


def _read_tensor(model: tflite.Model, tensor: tflite.Tensor, index: int, data: bytes) -> Tensor:
    name = _name(tensor)
    if tensor.Type() not in _TENSOR_TYPES:
        raise ModelError(f"tensor {index} '{name}' has type {tensor.Type()}, which the TFLite schema does not define")
    dtype = _TENSOR_TYPES[tensor.Type()]
    if not 0 <= tensor.Buffer() < model.BuffersLength():  # a state tensor's too, though its buffer is never read
        raise ModelError(f"corrupt TFLite flatbuffer: tensor {index} '{name}' refers to buffer {tensor.Buffer()} "
                         f"of {model.BuffersLength()}")
    shape = () if tensor.ShapeIsNone() else tuple(int(d) for d in tensor.ShapeAsNumpy())
    if any(d < 0 for d in shape):
        raise ModelError(f"tensor {index} '{name}' has an unknown shape {shape}")
    return Tensor(index=index, name=name, shape=shape, dtype=dtype,
                  quant=_read_quantization(tensor), is_variable=bool(tensor.IsVariable()),
                  # a variable's buffer is its initial state, not a constant to fold or embed
                  data=None if tensor.IsVariable() else _read_buffer(model, tensor, index, name, dtype, shape, data))


def _check_litert_signatures(model: tflite.Model) -> None:
    """In a model LiteRT checks: its Python interpreter decodes every signature's key and tensor
    names as UTF-8 when it loads the model, so one that is not refuses the model there."""
    for i in range(model.SignatureDefsLength()):
        signature = model.SignatureDefs(i)
        names = [signature.SignatureKey()] + [signature.Inputs(j).Name() for j in range(signature.InputsLength())] + [
            signature.Outputs(j).Name() for j in range(signature.OutputsLength())]
        for name in names:
            try:
                (name or b"").decode("utf-8")
            except UnicodeDecodeError:
                raise ModelError(f"signature {i} holds a name that is not UTF-8 (LiteRT, this model's oracle, "
                                 "reads every name)") from None


def _check_litert_quantization(subgraph: tflite.SubGraph) -> None:
    """In a model LiteRT checks (`oracle.NOT_IN_TFLM`): its loader refuses a tensor whose scale and
    zero point vectors are both there but of different lengths, empty ones too, where TFLite Micro
    (and `_read_quantization`) take an empty one for an unquantized tensor."""
    for i in range(subgraph.TensorsLength()):
        q = subgraph.Tensors(i).Quantization()
        if q is not None and not q.ScaleIsNone() and not q.ZeroPointIsNone() and q.ScaleLength() != q.ZeroPointLength():
            raise ModelError(f"tensor {i} has {q.ScaleLength()} scales and {q.ZeroPointLength()} zero points (LiteRT, "
                             "this model's oracle, needs as many of each)")


def _read_quantization(tensor: tflite.Tensor) -> Quantization | None:
    q = tensor.Quantization()
    # As TFLite: affine quantization needs both vectors; without either the tensor is unquantized.
    if q is None or q.ScaleIsNone() or q.ScaleLength() == 0 or q.ZeroPointIsNone() or q.ZeroPointLength() == 0:
        return None
    scale = tuple(float(s) for s in q.ScaleAsNumpy())
    zero_point = tuple(_as_int32(int(z)) for z in q.ZeroPointAsNumpy())
    return Quantization(scale=scale, zero_point=zero_point, axis=q.QuantizedDimension())


def _as_int32(value: int) -> int:
    """A zero point as TFLite Micro's loader stores it: the schema's int64 in an int32 field, its
    low 32 bits (two's complement). A zero point of -2**40 is 0 there, and a model whose anchors
    carry it runs (and its detector then fails on empty boxes), so it is 0 here too."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def _read_buffer(model, tensor, index, name, dtype, shape, data) -> np.ndarray | None:
    buffer = model.Buffers(tensor.Buffer())
    if buffer is None:
        return None
    if buffer.Offset() > 1:  # large models keep constant data after the flatbuffer itself
        raw = data[buffer.Offset(): buffer.Offset() + buffer.Size()]
        if len(raw) != buffer.Size():
            raise ModelError(f"corrupt or truncated TFLite flatbuffer (tensor {index} '{name}' data is cut off)")
    elif buffer.DataLength():
        raw = buffer.DataAsNumpy().tobytes()
    else:
        return None
    if dtype not in ("int8", "int16", "int32", "int64", "uint8", "float32", "float16", "bool"):
        raise ModelError(f"tensor {index} '{name}' has unsupported constant type {dtype}")
    expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if len(raw) != expected:
        raise ModelError(f"corrupt TFLite flatbuffer: tensor {index} '{name}' holds {len(raw)} bytes, "
                         f"its shape {shape} needs {expected}")
    array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    array.flags.writeable = False
    return array


# Operators that never read an int8 tensor's quantization (CAST converts the integers as they are)
_QUANTIZATION_FREE = frozenset({"CAST"})


def _check_int8_quantized(graph: Graph) -> None:
    """Every int8 activation carries its quantization (the types themselves were checked as blockers),
    except one that only quantization-free operators read and write (an audio front end's int8
    features, cast from int32 at the graph output)."""
    users: dict[int, set[str]] = {}
    for op in graph.ops:
        for t in op.inputs + op.outputs:
            users.setdefault(t, set()).add(op.kind)
    for op in graph.ops:
        for t in op.inputs + op.outputs:
            tensor = graph.tensors[t] if t >= 0 else None
            if tensor is not None and not tensor.is_constant and tensor.dtype == "int8" and tensor.quant is None \
                    and not users[t] <= _QUANTIZATION_FREE:
                raise ModelError(f"tensor {t} '{tensor.name}' is int8 without quantization parameters")
