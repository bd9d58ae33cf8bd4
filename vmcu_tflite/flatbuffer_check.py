"""Read every field of a TFLite flatbuffer once, so that corruption anywhere is found up front.

The reader only reads the fields it needs, and a flatbuffer has no checksum: a corrupt offset in
a field nobody reads (metadata, a signature, another operator's options table) goes unnoticed.
TFLite Micro's loaders read the whole model and refuse it; so does this walk, through the
`tflite` package's accessors: every table, vector and union of the schema, each table once
(a corrupt offset may make two fields share one, or a cycle). Any exception on the way means
the bytes are not a valid model. Strings and vectors are bounds-checked as they are read (the
`flatbuffers` accessors slice silently past the end), and tables, vtables, fields, strings and
vectors must start aligned, as flatbuffers' verifier in TFLite does (LiteRT verifies every model it
loads; an aligned writer never trips it).
"""
from __future__ import annotations

from functools import lru_cache

import flatbuffers
import tflite
from flatbuffers import encode, number_types

_UOFFSET = number_types.UOffsetTFlags

MAX_DEPTH = 12  # the schema nests tables about six deep; more means corrupt offsets
_UNION_ENUMS = {"Details": "QuantizationDetails", "ArraySegments": "SparseIndexVector",
                "ArrayIndices": "SparseIndexVector"}
_SKIP_SUFFIXES = ("IsNone", "Length", "AsNumpy", "BufferHasIdentifier", "Type")
_SKIP = ("Init", "GetRootAs")


def check_flatbuffer(model: tflite.Model) -> None:
    """Raise whatever reading a corrupt field raises; return quietly for a sound model."""
    _walk(model, set(), 0)


class _CheckedTable(flatbuffers.table.Table):
    """A table whose fields lie aligned to their size, and whose strings must end, NUL-terminated,
    and vectors start, inside the buffer, both aligned."""

    def Get(self, flags, off):
        if off % flags.bytewidth:
            raise ValueError("a field is not aligned")
        return super().Get(flags, off)

    def Indirect(self, off):
        if off % _UOFFSET.bytewidth:
            raise ValueError("a field is not aligned")
        return super().Indirect(off)

    def String(self, off):
        if off % _UOFFSET.bytewidth:
            raise ValueError("a field is not aligned")
        at = off + encode.Get(_UOFFSET.packer_type, self.Bytes, off)
        if at % _UOFFSET.bytewidth:
            raise ValueError("a string's length is not aligned")
        end = at + _UOFFSET.bytewidth + encode.Get(_UOFFSET.packer_type, self.Bytes, at)
        if end >= len(self.Bytes) or self.Bytes[end] != 0:
            raise ValueError("a string runs past the end of the buffer")
        return super().String(off)

    def VectorLen(self, off):
        at = self.Pos + off
        if at % _UOFFSET.bytewidth or (at + encode.Get(_UOFFSET.packer_type, self.Bytes, at)) % _UOFFSET.bytewidth:
            raise ValueError("a vector's length is not aligned")
        length = super().VectorLen(off)
        if self.Vector(off) + length > len(self.Bytes):
            raise ValueError("a vector runs past the end of the buffer")
        return length


def _walk(table, seen: set, depth: int) -> None:
    key = (type(table).__name__, table._tab.Pos)
    if key in seen:
        return
    if depth > MAX_DEPTH:
        raise ValueError("tables nested too deep")
    seen.add(key)
    _check_vtable(table._tab)
    table._tab = _CheckedTable(table._tab.Bytes, table._tab.Pos)
    for name, kind in _fields(type(table)):
        if kind == "numbers":
            getattr(table, name + "AsNumpy")()
        elif kind == "vector":
            for i in range(getattr(table, name + "Length")()):
                _visit(getattr(table, name)(i), seen, depth)
        elif kind == "union":
            _visit_union(table, name, seen, depth)
        else:
            _visit(getattr(table, name)(), seen, depth)


def _check_vtable(tab) -> None:
    """The table and its vtable inside the buffer, the vtable's size even and at least its own two
    sizes, as flatbuffers' verifier wants: the accessors read any field below a corrupt size, past
    the vtable's real end."""
    data, pos = tab.Bytes, tab.Pos
    vtable = pos - encode.Get(number_types.SOffsetTFlags.packer_type, data, pos)
    if not 0 <= vtable <= len(data) - 4:
        raise ValueError("a table's vtable lies outside the buffer")
    if pos % 4 or vtable % 2:
        raise ValueError("a table or its vtable is not aligned")
    size, table_size = (encode.Get(number_types.VOffsetTFlags.packer_type, data, vtable + k) for k in (0, 2))
    if size % 2 or size < 4 or vtable + size > len(data) or pos + table_size > len(data):
        raise ValueError("a table's vtable or fields run past the end of the buffer")


@lru_cache(maxsize=None)
def _fields(cls) -> tuple[tuple[str, str], ...]:
    """The accessors of a generated table class: (name, "numbers" | "vector" | "union" | "field")."""
    fields = []
    for name in dir(cls):
        if name.startswith("_") or name.startswith(_SKIP) or name.endswith(_SKIP_SUFFIXES):
            continue
        if hasattr(cls, name + "Length"):
            fields.append((name, "numbers" if hasattr(cls, name + "AsNumpy") else "vector"))
        else:
            fields.append((name, "union" if hasattr(cls, name + "Type") else "field"))
    return tuple(fields)


def _visit(value, seen: set, depth: int) -> None:
    if hasattr(value, "_tab"):
        _walk(value, seen, depth + 1)


def _visit_union(table, name: str, seen: set, depth: int) -> None:
    kind = getattr(table, name + "Type")()
    inner = getattr(table, name)()
    if inner is None or kind == 0:
        return
    enum = getattr(tflite, _UNION_ENUMS.get(name, name))
    names = {v: k for k, v in vars(enum).items() if not k.startswith("_")}
    if kind not in names:
        return  # a table type newer than the `tflite` package: nothing to check it against
    member = getattr(tflite, names[kind])()
    member.Init(inner.Bytes, inner.Pos)
    _walk(member, seen, depth + 1)
