"""What a kernel description executes over: loop instances, registers, loaded and flash pointers.

`kernel_exec.py` runs each statement over all its instances at once. A RegAlloc is one buffer
per instance of the loops around it (`Buffer`); a RAMLoad's pointer keeps its runs packed, as
the C's copy does (`Loaded`); a FlashLoad points into a constant array (`FlashPointer`). Every
read and write goes through `Statement.read` and `Statement.write`, which check it: an index
outside a buffer, a flash array or the loaded bytes, or an element nothing wrote, is a wrong
description (`DescriptionError`); an element one statement writes twice in one buffer instance,
or a buffer written after another statement read it, is a value carried between iterations,
which statement-by-statement execution does not reproduce (`ExecutionError`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import numpy as np

from .flash import INT_TYPES
from .pool_history import UNSET

if TYPE_CHECKING:
    from .kernel_exec import Executor

CHUNK = 1 << 22  # elements a vectorized reduction handles at once


class DescriptionError(Exception):
    """The description reads values that are undefined in its C (uninitialized, not loaded, out of bounds)."""


class ExecutionError(Exception):
    """The description needs an order of execution this executor does not reproduce (a bug to fix here)."""


@dataclass
class Frame:
    """The instances of one loop nest: loop variables, and each instance's enclosing instance."""

    env: dict[str, np.ndarray]
    parent: np.ndarray | None
    up: "Frame | None"
    depth: int
    _ancestors: dict[int, np.ndarray] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return int(self.env["__count__"])

    def ancestor(self, depth: int) -> np.ndarray:
        """For each instance, the index of the instance of the enclosing frame at `depth` it runs in."""
        if depth == self.depth:
            return np.arange(self.count, dtype=np.int64)
        if depth not in self._ancestors:
            self._ancestors[depth] = self.up.ancestor(depth)[self.parent]
        return self._ancestors[depth]

    def value(self, expr) -> np.ndarray:
        return np.broadcast_to(np.asarray(expr.evaluate(self.env), dtype=np.int64), (self.count,))


@dataclass
class Buffer:
    """A RegAlloc: `size` elements of `ctype` per instance of its frame."""

    name: str
    ctype: str
    frame: Frame
    values: np.ndarray  # [instances, size]
    readers: set = field(default_factory=set)  # positions of the statements that read it

    @property
    def size(self) -> int:
        return self.values.shape[1]


@dataclass
class Loaded:
    """A RAMLoad's pointer: `runs` runs of `length` bytes, `stride` apart in its index space,
    kept packed (run r at r * length), as the C's copy keeps them."""

    name: str
    frame: Frame
    values: np.ndarray  # [instances, max runs * length]
    length: np.ndarray
    runs: np.ndarray
    stride: np.ndarray


@dataclass
class FlashPointer:
    """A pointer into a constant array: element i of instance n is array[base[n] + i]."""

    name: str
    frame: Frame | None
    array: np.ndarray
    base: np.ndarray | int


@dataclass
class Word:
    """A Broadcast: the 16-bit value both halves of the word hold."""

    value: int


def expand(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which, i): for each instance n, the pairs (n, i) with i < lengths[n], in order."""
    lengths = np.maximum(lengths, 0)
    which = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    return which, np.arange(len(which), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def chunks(lengths: np.ndarray) -> Iterator[np.ndarray]:
    """Instance indices in groups whose lengths add up to at most about CHUNK elements."""
    ends = np.cumsum(np.maximum(lengths, 0))
    start = 0
    while start < len(lengths):
        stop = max(start + 1, int(np.searchsorted(ends, (ends[start - 1] if start else 0) + CHUNK, side="right")))
        yield np.arange(start, min(stop, len(lengths)))
        start = stop


def packed_positions(which: np.ndarray, count: int) -> np.ndarray:
    """Each element's position among those of its instance (`which` ascending)."""
    per = np.bincount(which, minlength=count)
    return np.arange(len(which), dtype=np.int64) - np.repeat(np.cumsum(per) - per, per)


def _repeats(flat: np.ndarray, size: int) -> bool:
    """Whether an index occurs twice in `flat` (indices below `size`)."""
    if len(flat) * 4 >= size:
        return bool(len(flat)) and int(np.bincount(flat, minlength=size).max()) > 1
    return len(np.unique(flat)) != len(flat)


def as_ctype(values: np.ndarray, ctype: str) -> np.ndarray:
    """What a C variable of `ctype` holds after the assignment (integer conversion wraps)."""
    return np.asarray(values, np.int64).astype(INT_TYPES[ctype]).astype(np.int64)


class Statement:
    """One statement executed over all its instances: the checked accesses its semantics use."""

    def __init__(self, executor: "Executor", stmt, position: tuple, frame: Frame, scope: dict, ident: int) -> None:
        """`executor` holds the step's constants, its pool traffic and what it stored; `position`
        the statement's place in the description, `scope` the names declared around it, `ident`
        its number for messages."""
        self.executor, self.stmt, self.position, self.frame = executor, stmt, position, frame
        self.scope, self.ident = scope, ident

    def run(self) -> None:
        getattr(self, f"_{type(self.stmt).__name__}")(self.stmt)

    # -- helpers --------------------------------------------------------------------------------

    def check(self, which: np.ndarray, wrong: np.ndarray, why, cls=DescriptionError) -> None:
        """Raise `cls` at the first element where `wrong` holds, naming its statement instance
        `which[k]`; `why(k)` says what is wrong with element k."""
        bad = np.flatnonzero(wrong)
        if bad.size:
            k = int(bad[0])
            raise cls(f"{self.executor.describe(self.ident, int(which[k]))} {why(k)}")

    def flash(self, expression: str, ctype: str) -> FlashPointer:
        """A pointer to the start of the emitted params' array `expression`, read as `ctype`."""
        return FlashPointer(expression, None, self.executor.image.array(expression, ctype), 0)

    def value(self, expr) -> np.ndarray:
        return self.frame.value(expr)

    def lookup(self, name: str):
        if name not in self.scope:
            raise ExecutionError(f"{type(self.stmt).__name__} names {name!r}, which no statement declared")
        return self.scope[name]

    def owner(self, decl) -> np.ndarray:
        """For each instance of this statement, the instance of `decl`'s frame it runs in."""
        return self.frame.ancestor(decl.frame.depth) if decl.frame is not None else np.zeros(self.frame.count, np.int64)

    def read(self, name: str, which: np.ndarray, index: np.ndarray, what: str) -> np.ndarray:
        """Elements `index` of `name` for the statement instances `which` (same shapes)."""
        decl = self.lookup(name) if isinstance(name, str) else name
        inst = self.owner(decl)[which]
        if isinstance(decl, FlashPointer):
            at = (decl.base[inst] if isinstance(decl.base, np.ndarray) else decl.base) + index
            self.check(which, (at < 0) | (at >= len(decl.array)),
                       lambda k: f"reads {what} element {int(at[k])} of {decl.name}, a flash array of {len(decl.array)}")
            return decl.array[at].astype(np.int64)
        if isinstance(decl, Loaded):
            stride, length, runs = decl.stride[inst], decl.length[inst], decl.runs[inst]
            run = np.where(stride > 0, index // np.maximum(stride, 1), 0)
            byte = index - run * stride
            self.check(which, (index < 0) | (run >= runs) | (byte < 0) | (byte >= length),
                       lambda k: f"reads {what} byte {int(index[k])} of {decl.name}, which its RAMLoad did not load "
                                 f"({int(runs[k])} runs of {int(length[k])} bytes)")
            return decl.values[inst, run * length + byte]
        if not isinstance(decl, Buffer):
            raise ExecutionError(f"{type(self.stmt).__name__} reads {name!r}, which is not a buffer")
        self.check(which, (index < 0) | (index >= decl.size),
                   lambda k: f"reads {what} element {int(index[k])} of {decl.name}[{decl.size}]")
        values = decl.values[inst, index]
        self.check(which, values == UNSET,
                   lambda k: f"reads {what} element {int(index[k])} of {decl.name}, which nothing has written")
        decl.readers.add(self.position)
        return values

    def write(self, name: str, which: np.ndarray, index: np.ndarray, values: np.ndarray, add: bool = False) -> None:
        """Elements `index` of buffer `name` for the instances `which` := values (+= with `add`)."""
        decl = self.lookup(name)
        if not isinstance(decl, Buffer):
            raise ExecutionError(f"{type(self.stmt).__name__} writes {name!r}, which is not a buffer")
        if decl.readers - {self.position}:
            raise ExecutionError(f"{type(self.stmt).__name__} writes {name} after another statement read it: "
                                 "a loop-carried value this executor does not reproduce")
        inst = self.owner(decl)[which]
        self.check(which, (index < 0) | (index >= decl.size),
                   lambda k: f"writes element {int(index[k])} of {decl.name}[{decl.size}]")
        flat = inst * decl.size + index
        target = decl.values.reshape(-1)
        if add:
            self.check(which, target[flat] == UNSET,
                       lambda k: f"adds to element {int(index[k])} of {decl.name}, which nothing has initialized")
            sums = np.bincount(flat, weights=values.astype(np.float64), minlength=target.size)  # exact below 2^53
            changed = np.flatnonzero(sums)
            target[changed] = as_ctype(target[changed] + np.rint(sums[changed]).astype(np.int64), decl.ctype)
            return
        if _repeats(flat, target.size):
            raise ExecutionError(f"{type(self.stmt).__name__} writes an element of {decl.name} twice in one of its "
                                 "instances: a loop-carried value this executor does not reproduce")
        target[flat] = as_ctype(values, decl.ctype)

    def integer(self, expression: str) -> int:
        return self.executor.image.integer(expression)

    def offset(self, offsets: str, x_offset: str) -> int:
        """The input offset: the portable path adds `x_offset`, the DSP path the Broadcast `offsets`;
        a description must give both the same value."""
        value = self.integer(x_offset)
        word = self.lookup(offsets)
        if not isinstance(word, Word) or word.value != int(np.int16(value)):
            raise DescriptionError(f"{type(self.stmt).__name__} adds {x_offset} = {value} on its portable path "
                                   f"but the Broadcast {offsets} on its DSP path")
        return value
