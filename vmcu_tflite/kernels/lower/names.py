"""The names and small pieces of C text every part of the C generator shares.

The lowering keeps a scope of the names each statement declares (`Pointer`: what a name is, so that
later statements index it, copy it or keep it in registers the right way), and writes the same few
operand forms everywhere (unsigned offsets, index sums). They live here so that the shared core and
each instruction set's lowering import them from one place and none imports another's internals.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..c_text import paren
from ..index import Const, Ix, Sum
from ..ir import Kernel, Loop, Workspace
from ..schedule import walk

INDENT = "    "
SIGNATURE = ("static vmcu_status {name}(const vmcu_context *ctx, const void *params, const vmcu_view *inputs, "
             "const vmcu_view *output)")
PARAMETERS = ("ctx", "params", "inputs", "output", "p")


@dataclass(frozen=True)
class Pointer:
    """A name a statement declared: a loaded pointer (maybe strided), a buffer, a flash pointer, a word."""

    kind: str  # "load", "buffer", "flash", "word", "helper"
    run_stride: Ix | None = None  # loads that may have several runs: indexes go through <name>_rs
    serial: int = -1  # declarations in order: the same in both passes of `lower`
    size: int = 0  # a buffer's elements
    ctype: str = "int8_t"  # a buffer's elements' C type


ELEMENT_BYTES = {"int8_t": 1, "int16_t": 2}


def u32(e: Ix) -> str:
    """`e` as a uint32_t operand of the runtime's byte offsets and lengths (a literal where constant)."""
    return f"{e.value}u" if isinstance(e, Const) and e.value >= 0 else f"(uint32_t){paren(e.c())}"


def split_index(index: Ix, stride: int) -> tuple[Ix, int] | None:
    """(a, b) with index = a * stride + b and b a constant in [0, stride), or None."""
    if isinstance(index, Const):
        return Const(index.value // stride), index.value % stride
    parts, const = (index.parts, index.const) if isinstance(index, Sum) else (((1, index),), 0)
    run: Ix = Const(const // stride)
    for coef, part in parts:
        if coef % stride:
            return None
        run = run + part * (coef // stride)
    return run, const % stride


def declared_names(kernel: Kernel) -> set[str]:
    """Every identifier the description itself declares (loop variables and statement names)."""
    found = set()
    for placed in walk(kernel.body):
        stmt = placed.stmt
        name = stmt.var if isinstance(stmt, Loop) else getattr(stmt, "name", None)
        if name is not None:
            found.add(name)
    return found


def workspace_view(ws: Workspace) -> str:
    """The C view of a workspace: `ws` for the one at the workspace's start, `ws_<name>` elsewhere."""
    return "ws" if ws.at == 0 else f"ws_{ws.name}"


@lru_cache(maxsize=None)
def divisors(n: int) -> tuple[int, ...]:
    """The divisors of n above 1, largest first."""
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return tuple(sorted({d for d in small + [n // d for d in small] if d > 1}, reverse=True))


def index_sum(index: str, var: str) -> str:
    """`index + var` in C, `var` alone for the index 0."""
    return var if index in ("0", "(0)") else f"{index} + {var}"
