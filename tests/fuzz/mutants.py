"""Mutated TFLite models, as a hostile or careless user would hand them over.

Three kinds, each drawn from a seeded `random.Random` so a failing case can be rebuilt from its
seed alone:
- truncations of the file at any byte;
- flips of a few random bytes (mostly weights and tables: the flatbuffer stays readable);
- field mutations through the schema's object API: one field of a tensor (shape, type,
  quantization, buffer), an operator (inputs, outputs, opcode, one option), the operator order,
  the subgraph's inputs and outputs, or a buffer's bytes, set to a value chosen to break
  something (0, -1, a huge number, NaN, another tensor's index, an enum value the schema does
  not define, ...), or an optional field dropped (a tensor's name, a custom operator's code);
- in a model with int16 tensors, a share (`INT16_SHARE`) of the mutants instead changes an operator
  that reads or writes int16 in ways a careless quantizer would: its tensors' scales multiplied by a
  plausible factor (a LUT op's input scale off a power of two, a requantization's multiplier moved),
  an int16 zero point made nonzero, a constant re-encoded in another integer type (an int64 bias as
  int32 and back, int8 weights as int16), every activation of one shape given another size along one
  dimension (a consistent change that often still converts), or an option set to a small value the
  schema allows. These draw from a stream of their own, so that the other kinds stay as they were for
  a seed (past findings rebuild with `int16_share=0`).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

from tests.tflite_builder import pack, unpack

INTS = (0, 1, 2, 3, 4, 5, 7, 8, 16, -1, -2, -128, 127, 128, 255, 256, 1 << 15, 1 << 20, 1 << 30, (1 << 31) - 1, -(1 << 31))
SCALES = (0.0, -1.0, math.nan, math.inf, 1e-30, 1e-12, 1e12, 1e30, 2.0, 0.5)
ZERO_POINTS = (-129, 128, 255, -(1 << 40), 1 << 40, 1 << 31, 0, -128, 127)
INT16_SHARE = 0.5  # of the mutants of a model with int16 tensors
SCALE_FACTORS = (0.5, 2.0, 0.9, 1.1, 1 / 3, 3.0, 0.01, 100.0, 1 / 128, 1.0000001)
INT16_ZERO_POINTS = (1, -1, 7, -32768, 32767)
# schema TensorType codes, their numpy dtypes and ranges, for re-encoding constants
INT8, INT16, INT32, INT64 = 9, 7, 2, 4
_INT_TYPES = {INT8: ("<i1", 8), INT16: ("<i2", 16), INT32: ("<i4", 32), INT64: ("<i8", 64)}
_RETYPE = {INT64: (INT32, INT16), INT32: (INT64, INT16), INT8: (INT16, INT32)}


@dataclass(frozen=True)
class Mutant:
    """One mutated model and how it was made (enough to find the field that broke a tool)."""

    seed: int
    source: str  # the fixture it came from
    how: str
    data: bytes


def _ints(values) -> list[int]:
    """A schema vector (None, a list or a read-only numpy array) as a list we may change."""
    return [] if values is None else [int(v) for v in values]


def _int_like(rng: random.Random, value) -> int:
    return rng.choice(INTS + ((value + rng.choice((-1, 1))),) if isinstance(value, int) else INTS)


def _mutate_tensor(rng: random.Random, model, sub) -> str:
    index = rng.randrange(len(sub.tensors))
    t = sub.tensors[index]
    what = rng.choice(("shape", "shape", "type", "scale", "zero_point", "axis", "quant_length", "buffer", "drop_quant",
                       "drop_name"))
    if what == "shape" and t.shape is not None and len(t.shape):
        t.shape = _ints(t.shape)
        d = rng.randrange(len(t.shape))
        t.shape[d] = _int_like(rng, int(t.shape[d]))
    elif what == "shape":
        t.shape = [rng.choice(INTS)]
    elif what == "type":  # the schema's types, and byte values it does not define
        t.type = rng.choice((*range(0, 19), 19, 99, 127, -1))
    elif what == "drop_name":  # optional in the schema
        t.name = None
    elif what == "buffer":
        t.buffer = rng.choice((0, len(model.buffers) - 1, len(model.buffers), rng.randrange(len(model.buffers))))
    elif t.quantization is None or t.quantization.scale is None or not len(t.quantization.scale):
        return _mutate_op(rng, model, sub)  # an empty scale list (an earlier mutation's) has no entry to change
    elif what == "scale":
        q = t.quantization
        q.scale = [float(v) for v in q.scale]
        q.scale[rng.randrange(len(q.scale))] = rng.choice(SCALES)
    elif what == "zero_point" and t.quantization.zeroPoint is not None and len(t.quantization.zeroPoint):
        q = t.quantization
        q.zeroPoint = _ints(q.zeroPoint)
        q.zeroPoint[rng.randrange(len(q.zeroPoint))] = rng.choice(ZERO_POINTS)
    elif what == "axis":
        t.quantization.quantizedDimension = rng.choice((-1, 1, 2, 3, 4, 100))
    elif what == "quant_length":
        q = t.quantization
        n = rng.choice((1, 2, 7, len(q.scale) + 1, max(len(q.scale) - 1, 0)))
        q.scale = list(q.scale[:1]) * n
        q.zeroPoint = [0] * rng.choice((n, n + 1, 1))
    else:
        t.quantization = None
    return f"tensor {index} {what}"


def _mutate_op(rng: random.Random, model, sub) -> str:
    if not sub.operators:
        return "no op"
    index = rng.randrange(len(sub.operators))
    op = sub.operators[index]
    what = rng.choice(("input", "input", "output", "opcode", "option", "option", "option", "swap", "extra_input"))
    n = len(sub.tensors)
    if what in ("input", "output"):
        ports = _ints(op.inputs if what == "input" else op.outputs)
        if not ports:
            return "op without ports"
        k = rng.randrange(len(ports))
        own = _ints(op.outputs) or [0]
        ports[k] = rng.choice((-1, -2, n, n + 7, rng.randrange(n), rng.choice(own)))
        setattr(op, "inputs" if what == "input" else "outputs", ports)
        return f"op {index} {what} {k} -> {ports[k]}"
    if what == "extra_input":
        op.inputs = _ints(op.inputs) + [rng.choice((-1, rng.randrange(n)))]
        return f"op {index} extra input"
    if what == "opcode":
        op.opcodeIndex = rng.choice((len(model.operatorCodes), rng.randrange(len(model.operatorCodes))))
        return f"op {index} opcode {op.opcodeIndex}"
    if what == "swap" and len(sub.operators) > 1:
        other = rng.randrange(len(sub.operators))
        sub.operators[index], sub.operators[other] = sub.operators[other], op
        return f"ops {index} <-> {other}"
    options = op.builtinOptions
    fields = [f for f, v in vars(options).items() if isinstance(v, (int, float)) and not isinstance(v, bool)] if options else []
    if not fields and 0 <= op.opcodeIndex < len(model.operatorCodes):
        code = model.operatorCodes[op.opcodeIndex]
        code.builtinCode = rng.choice((rng.randrange(0, 160), 250, 1000, 32))  # 32: CUSTOM
        if code.builtinCode == 32:
            code.customCode = rng.choice((None, b"", b"ethos-u"))  # custom_code is optional
        return f"op {index} builtin code {code.builtinCode}"
    if not fields:
        return f"op {index} (opcode out of range already)"
    field = rng.choice(fields)
    setattr(options, field, rng.choice(SCALES) if isinstance(getattr(options, field), float) else rng.choice(INTS))
    return f"op {index} option {field} -> {getattr(options, field)}"


def _mutate_graph(rng: random.Random, model, sub) -> str:
    what = rng.choice(("inputs", "outputs", "buffer_bytes", "buffer_bytes"))
    n = len(sub.tensors)
    if what in ("inputs", "outputs"):
        ports = _ints(getattr(sub, what))
        choice = rng.choice(("replace", "drop", "add"))
        if choice == "replace" and ports:
            ports[rng.randrange(len(ports))] = rng.choice((-1, n, rng.randrange(n)))
        elif choice == "drop" and ports:
            ports.pop()
        else:
            ports.append(rng.randrange(n))
        setattr(sub, what, ports)
        return f"subgraph {what} {choice}"
    filled = [b for b in model.buffers if b.data is not None and len(b.data)]
    if not filled:
        return "no buffer"
    buf = rng.choice(filled)
    data = bytearray(bytes(buf.data))
    cut = rng.choice(("truncate", "extend", "randomize"))
    if cut == "truncate":
        data = data[:rng.randrange(len(data))]
    elif cut == "extend":
        data += bytes(rng.randrange(1, 9))
    else:
        for _ in range(rng.randrange(1, 9)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    buf.data = list(data)
    return f"buffer {cut}"


def _int16_ops(model, sub) -> list[int]:
    """Indexes of the operators that read or write an int16 tensor."""
    n = len(sub.tensors)
    return [i for i, op in enumerate(sub.operators or [])
            if any(0 <= t < n and sub.tensors[t].type == INT16 for t in _ints(op.inputs) + _ints(op.outputs))]


def _is_constant(model, t) -> bool:
    return 0 <= t.buffer < len(model.buffers) and model.buffers[t.buffer].data is not None \
        and len(model.buffers[t.buffer].data) > 0


def _mutate_int16(rng: random.Random, model, sub, ops: list[int]) -> str:
    """One int16-minded change to an operator in `ops` (see the module docstring)."""
    index = rng.choice(ops)
    op = sub.operators[index]
    ports = [t for t in _ints(op.inputs) + _ints(op.outputs) if 0 <= t < len(sub.tensors)]
    what = rng.choice(("scale", "scale", "zero_point", "retype", "shape", "option"))
    if what == "scale":
        quantized = [t for t in ports if sub.tensors[t].quantization is not None
                     and sub.tensors[t].quantization.scale is not None and len(sub.tensors[t].quantization.scale)]
        if quantized:
            t = rng.choice(quantized)
            q, factor = sub.tensors[t].quantization, rng.choice(SCALE_FACTORS)
            q.scale = [float(v) * factor for v in q.scale]
            return f"op {index} tensor {t} scale x{factor:.7g}"
    if what == "zero_point":
        wide = [t for t in ports if sub.tensors[t].type == INT16 and sub.tensors[t].quantization is not None]
        if wide:
            t = rng.choice(wide)
            q = sub.tensors[t].quantization
            q.zeroPoint = [rng.choice(INT16_ZERO_POINTS)] * max(1, len(_ints(q.zeroPoint)))
            return f"op {index} tensor {t} int16 zero point {q.zeroPoint[0]}"
    if what == "retype":
        constants = [t for t in ports if sub.tensors[t].type in _RETYPE and _is_constant(model, sub.tensors[t])]
        if constants:
            t = rng.choice(constants)
            tensor = sub.tensors[t]
            buf = model.buffers[tensor.buffer]
            old, new = tensor.type, rng.choice(_RETYPE[tensor.type])
            values = np.frombuffer(bytes(buf.data), dtype=_INT_TYPES[old][0])
            bits = _INT_TYPES[new][1]
            values = np.clip(values.astype(np.int64), -(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            buf.data = list(values.astype(_INT_TYPES[new][0]).tobytes())
            tensor.type = new
            return f"op {index} tensor {t} constant retyped {_INT_TYPES[old][1]} -> {bits} bits"
    if what == "shape":
        active = [t for t in ports if not _is_constant(model, sub.tensors[t]) and sub.tensors[t].shape is not None
                  and len(sub.tensors[t].shape)]
        if active:
            shape = _ints(sub.tensors[rng.choice(active)].shape)
            d = rng.randrange(len(shape))
            new = list(shape)
            new[d] = rng.choice((1, 2, shape[d] + 1, max(shape[d] - 1, 1), 2 * shape[d]))
            changed = 0
            for tensor in sub.tensors:
                if not _is_constant(model, tensor) and _ints(tensor.shape) == shape:
                    tensor.shape, changed = list(new), changed + 1
                    if tensor.shapeSignature is not None and len(tensor.shapeSignature) == len(new):
                        tensor.shapeSignature = [-1 if int(s) == -1 else v for s, v in zip(tensor.shapeSignature, new)]
            return f"op {index} shape {shape} -> {new} ({changed} tensors)"
    options = op.builtinOptions
    fields = [f for f, v in vars(options).items() if isinstance(v, (int, float)) and not isinstance(v, bool)] \
        if options else []
    if not fields:
        return _mutate_tensor(rng, model, sub)
    field = rng.choice(fields)
    if isinstance(getattr(options, field), float):
        setattr(options, field, rng.choice((0.0, 0.1, 1.0, 3.0, getattr(options, field) * rng.choice((0.5, 2.0)))))
    else:
        setattr(options, field, rng.choice((0, 1, 2, 3)))
    return f"op {index} option {field} -> {getattr(options, field):.7g}"


def _int16_mutant(data: bytes, seed: int, source: str, rng: random.Random) -> Mutant | None:
    """A mutant of one or two int16-minded changes, or None when `data` has no int16 operator."""
    model = unpack(data)
    sub = model.subgraphs[0]
    ops = _int16_ops(model, sub)
    if not ops:
        return None
    hows = [_mutate_int16(rng, model, sub, ops) for _ in range(rng.choice((1, 1, 2)))]
    try:
        packed = pack(model)
    except Exception as err:  # a value the schema cannot hold
        return Mutant(seed, source, f"{'; '.join(hows)} (unpackable: {type(err).__name__})", data)
    return Mutant(seed, source, "int16: " + "; ".join(hows), packed)


def mutate(data: bytes, seed: int, source: str = "", int16_share: float = INT16_SHARE) -> Mutant:
    """The `seed`-th mutant of the model `data` (deterministic)."""
    side = random.Random(f"int16 {seed}")  # its own stream: the draws below stay what they were for `seed`
    if side.random() < int16_share:
        mutant = _int16_mutant(data, seed, source, side)
        if mutant is not None:
            return mutant
    rng = random.Random(seed)
    kind = rng.random()
    if kind < 0.15:
        cut = rng.randrange(len(data))
        return Mutant(seed, source, f"truncated at {cut}", data[:cut])
    if kind < 0.35:
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 5)):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        return Mutant(seed, source, "bytes flipped", bytes(flipped))
    model = unpack(data)
    sub = model.subgraphs[0]
    hows = []
    for _ in range(rng.choice((1, 1, 1, 2))):
        mutator = rng.choice((_mutate_tensor, _mutate_tensor, _mutate_op, _mutate_op, _mutate_graph))
        hows.append(mutator(rng, model, sub))
    try:
        packed = pack(model)
    except Exception as err:  # a value the schema cannot hold (out of its integer range)
        return Mutant(seed, source, f"{'; '.join(hows)} (unpackable: {type(err).__name__})", data)
    return Mutant(seed, source, "; ".join(hows), packed)
