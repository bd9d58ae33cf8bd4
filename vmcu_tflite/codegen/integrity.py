"""The model's integrity CRCs: the same CRC-32 (zlib's) the runtime's vmcu_verify_model() computes.

The runtime walks the tables in one canonical order (csrc/src/vmcu_verify.c, vmcu_check.h):
1. the model struct's integers (`header_crc`, checked by every run: it holds the counts of the
   arrays, which only a checksum can catch lying);
2. continuing from it, every tensor, step, input, output and initial-state entry, field by field;
3. each step's params, by the digest of the kernel the step calls: the struct's fields in
   declaration order, an integer as 4 bytes little-endian (sign-extended), a fixed-size array
   member element by element so, a constant's elements in their own width, little-endian, and a
   params struct reached by a pointer (a chain's layers, its residual ADD) in turn, the same way.
The result is `crc`. Here each params struct is walked from the C initializer the emitter wrote,
with the field order read from vmcu_types.h (c_layout.py), so no emitter keeps a second list.
"""
from __future__ import annotations

import re
import struct as _struct
import zlib

import numpy as np

from .c_layout import INTEGER_TYPES, structs
from .cwriter import CWriter

MAX_STEP_INPUTS = 10  # VMCU_MAX_STEP_INPUTS
_NUMPY = {"int8_t": "<i1", "uint8_t": "<u1", "int16_t": "<i2", "uint16_t": "<u2", "int32_t": "<i4", "uint32_t": "<u4",
          "int64_t": "<i8"}


def crc_ints(crc: int, values) -> int:
    """Each value as 4 bytes, little-endian, two's complement (vmcu_crc32_u32)."""
    return zlib.crc32(b"".join(_struct.pack("<I", int(v) & 0xFFFFFFFF) for v in values), crc)


def header_crc(pool_bytes: int, scratch_bytes: int, num_tensors: int, num_steps: int, num_inputs: int,
               num_outputs: int, state_bytes: int, state_tag: int, num_state_init: int) -> int:
    """The CRC of the model struct's own integers, in declaration order."""
    return crc_ints(0, [pool_bytes, scratch_bytes, num_tensors, num_steps, num_inputs, num_outputs, state_bytes,
                        state_tag, num_state_init])


def float_bits(value: float) -> int:
    return int(np.float32(value).view(np.uint32))


# -- C initializers as values ----------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(\{)|(\})|(,)|\.(\w+)\s*=|(&?-?[\w.+]+))")


def parse_initializer(text: str):
    """`{.a = 1, .b = {1, 2}, .c = &name}` -> {"a": "1", "b": ["1", "2"], "c": "&name"} (a braced
    list with designators is a dict, without a list; a scalar stays its C text)."""
    tokens = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip() == "":
                break
            raise ValueError(f"cannot read the C initializer at {text[pos:pos + 40]!r}")
        tokens.append(m.groups())
        pos = m.end()

    def value(i: int):
        open_, _, _, _, atom = tokens[i]
        if open_ is None:
            return atom, i + 1
        i += 1
        named: dict[str, object] = {}
        items: list[object] = []
        while tokens[i][1] is None:
            if tokens[i][2] is not None:
                i += 1
                continue
            key = tokens[i][3]
            if key is not None:
                named[key], i = value(i + 1)
            else:
                item, i = value(i)
                items.append(item)
        return (named if named else items), i + 1

    parsed, _ = value(0)
    return parsed


def _int(text: str) -> int:
    text = text.rstrip("uUlL")
    return -(1 << 31) if text == "INT32_MIN" else int(text, 0)


class ParamsDigest:
    """The runtime's digest of params structs, from the initializers a CWriter holds."""

    def __init__(self, writer: CWriter) -> None:
        self.objects = writer.objects
        self.layouts = structs()

    def struct(self, crc: int, ctype: str, init) -> int:
        fields = parse_initializer(init) if isinstance(init, str) else init
        for field in self.layouts[ctype]:
            value = fields.get(field.name, "0") if isinstance(fields, dict) else "0"
            count = field.length
            items = (value if isinstance(value, list) else [value]) if count is not None else [value]
            if count is not None:
                items = list(items) + ["0"] * (count - len(items))
            for item in items:
                crc = self.field(crc, field, item)
        return crc

    def field(self, crc: int, field, value) -> int:
        if field.pointers == 0 and field.base in INTEGER_TYPES:
            return crc_ints(crc, [_int(value)])
        if field.pointers == 0:  # a nested struct
            return self.struct(crc, field.base, value)
        if value in ("0", "NULL"):
            return crc
        name = value.lstrip("&")
        kind, ctype, payload = self.objects[name]
        if kind == "array":
            return zlib.crc32(np.asarray(payload, dtype=np.int64).astype(_NUMPY[ctype]).tobytes(), crc)
        if kind == "struct":
            return self.struct(crc, ctype, payload)
        for item in payload:  # a table of pointers to params structs
            if item not in ("0", "NULL"):
                kind, ctype, init = self.objects[item.lstrip("&")]
                crc = self.struct(crc, ctype, init)
        return crc
