"""The runtime's table structs as vmcu_types.h declares them: each struct's fields, in order.

The integrity CRC (integrity.py) folds a params struct's fields in declaration order, and the
table fuzzer (tests/c/table_fuzz/) mutates every integer field; both read the order and the
types from the header itself, so a field added to the runtime is covered without a second list.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

INTEGER_TYPES = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "int32_t": 4, "uint32_t": 4}


@dataclass(frozen=True)
class Field:
    """One declarator of a struct: `base` is the type without qualifiers, `pointers` how many
    `*` it has, `length` the array length of an array member (None for a scalar)."""

    name: str
    base: str
    pointers: int
    length: int | None

    @property
    def is_integer(self) -> bool:
        return self.pointers == 0 and self.base in INTEGER_TYPES


def header_path() -> Path:
    from .project import runtime_dir
    return runtime_dir() / "include" / "vmcu" / "vmcu_types.h"


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


@lru_cache(maxsize=None)
def structs(path: Path | None = None) -> dict[str, tuple[Field, ...]]:
    """Struct name (its typedef) -> fields in declaration order."""
    text = _strip_comments((path or header_path()).read_text())
    macros = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define\s+(\w+)\s+(\d+)\b", text)}
    found: dict[str, tuple[Field, ...]] = {}
    pattern = r"(?:typedef\s+struct\s*\w*\s*\{(?P<a>[^{}]*)\}\s*(?P<n1>\w+)\s*;)|(?:struct\s+(?P<n2>\w+)\s*\{(?P<b>[^{}]*)\}\s*;)"
    for m in re.finditer(pattern, text):
        body, name = (m.group("a"), m.group("n1")) if m.group("a") is not None else (m.group("b"), m.group("n2"))
        found[name] = tuple(f for decl in body.split(";") if decl.strip() for f in _declarators(decl, macros))
    return found


def _declarators(decl: str, macros: dict[str, int]) -> list[Field]:
    """`const int8_t *a, b[4]` -> its fields (a function pointer member is one opaque pointer)."""
    decl = " ".join(decl.split())
    if "(" in decl:  # a function pointer: vmcu_kernel's members are typedefs, so none is expected
        raise ValueError(f"unexpected declaration in vmcu_types.h: {decl}")
    first = re.match(r"((?:const\s+)?\w+)\s*(.*)", decl)
    base = re.sub(r"\bconst\b", "", first.group(1)).strip()
    fields = []
    for part in first.group(2).split(","):
        part = re.sub(r"\bconst\b", " ", part).strip()
        pointers = part.count("*")
        m = re.match(r"\**\s*(\w+)\s*(?:\[\s*(\w+)\s*\])?$", part.replace(" ", ""))
        if m is None:
            raise ValueError(f"cannot read the declarator {part!r} in vmcu_types.h")
        length = m.group(2)
        fields.append(Field(m.group(1), base, pointers,
                            None if length is None else int(macros.get(length, length))))
    return fields
