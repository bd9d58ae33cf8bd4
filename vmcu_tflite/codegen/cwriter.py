"""Formatting of C constants: named const arrays, collected while the tables are written.

Generated files must be byte-identical for the same input (no timestamps, no dict-order
surprises), so arrays are emitted in the order they were added and names are derived, not counted.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

C_TYPES = {"int8": "int8_t", "int32": "int32_t", "uint16": "uint16_t", "uint32": "uint32_t"}


def c_number(value) -> str:
    """A C literal that keeps its value for any int32 (INT32_MIN has no literal of its own)."""
    value = int(value)
    if value == -(1 << 31):
        return "INT32_MIN"
    return str(value)


def c_float(value: float) -> str:
    """A float literal that reads back as the same float32."""
    return f"{float(np.float32(value))!r}f".replace("inff", "INFINITY")


class CWriter:
    """Const arrays (and structs that point into them) for a model's .c file, each emitted once
    under `<prefix>_<name>`, in the order they were added."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._arrays: list[str] = []
        self._names: set[str] = set()
        # C name -> what was emitted under it, for the integrity CRC and the table fuzzer:
        # ("array", ctype, values), ("struct", ctype, initializer) or ("pointers", ctype, items)
        self.objects: dict[str, tuple[str, str, object]] = {}

    def array(self, ctype: str, name: str, values: Iterable, per_line: int = 16) -> str:
        """Add `static const <ctype> <prefix>_<name>[] = {...}` and return its C name."""
        full = self._claim(name)
        flat = np.asarray(list(values) if not isinstance(values, np.ndarray) else values).reshape(-1)
        self.objects[full] = ("array", ctype, [int(v) for v in flat])
        items = [c_number(v) for v in flat]
        if not items:
            items = ["0"]  # C forbids empty arrays
        rows = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        body = ",\n    ".join(rows)
        self._arrays.append(f"static const {ctype} {full}[{len(items)}] = {{\n    {body}\n}};\n")
        return full

    def struct(self, ctype: str, name: str, initializer: str) -> str:
        """Add `static const <ctype> <prefix>_<name> = <initializer>;` (after what it refers to)."""
        full = self._claim(name)
        self.objects[full] = ("struct", ctype, initializer)
        self._arrays.append(f"static const {ctype} {full} = {initializer};\n")
        return full

    def pointers(self, ctype: str, name: str, items: list[str]) -> str:
        """Add `static <ctype> const <prefix>_<name>[] = {...}`, a table of pointers (`ctype` ends
        in `*`), and return its C name."""
        full = self._claim(name)
        self.objects[full] = ("pointers", ctype, list(items))
        self._arrays.append(f"static {ctype}const {full}[{len(items)}] = {{{', '.join(items)}}};\n")
        return full

    def _claim(self, name: str) -> str:
        """The C name of `name`, which must not have been emitted before."""
        full = f"{self.prefix}_{name}"
        if full in self._names:
            raise ValueError(f"{full} emitted twice")
        self._names.add(full)
        return full

    def text(self) -> str:
        return "\n".join(self._arrays)
