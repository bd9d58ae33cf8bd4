"""Index expressions of the kernel language: integers built from loop variables.

Every address, loop bound and length in a kernel description is one of these trees: sums,
products by constants, min and max of loop variables and constants (the paper's affine access
functions plus the clamps that borders and partial segments need). Each tree has three readings,
one per use of the description:

- `evaluate(env)`: numpy arrays over many iterations at once (the reference interpreter),
- `c()`: a C expression (the generated kernel),
- `cpsat(model, env)`: a CP-SAT linear expression (the planner's gap, paper eq. 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Union

import numpy as np

IxLike = Union["Ix", int]
BOUND = 1 << 40  # domain of the CP-SAT helper variables: far beyond any tensor


def ix(value: IxLike) -> "Ix":
    return value if isinstance(value, Ix) else Const(int(value))


class Ix:
    """An integer-valued expression over loop variables."""

    def __add__(self, other: IxLike) -> "Ix":
        return _add(self, ix(other))

    __radd__ = __add__

    def __sub__(self, other: IxLike) -> "Ix":
        return _add(self, _scale(ix(other), -1))

    def __rsub__(self, other: IxLike) -> "Ix":
        return _add(ix(other), _scale(self, -1))

    def __mul__(self, factor: int) -> "Ix":
        if isinstance(factor, Ix):
            if not isinstance(factor, Const):
                raise TypeError("index expressions multiply by constants only (they must stay affine)")
            factor = factor.value
        return _scale(self, int(factor))

    __rmul__ = __mul__

    def __neg__(self) -> "Ix":
        return _scale(self, -1)

    def variables(self) -> frozenset[str]:
        raise NotImplementedError

    def evaluate(self, env: Mapping[str, np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def c(self) -> str:
        raise NotImplementedError

    def cpsat(self, model, env: Mapping):
        raise NotImplementedError

    def bounds(self, ranges: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
        """Least and greatest value when each variable v lies in ranges[v] (inclusive)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Const(Ix):
    value: int

    def variables(self):
        return frozenset()

    def evaluate(self, env):
        return np.int64(self.value)

    def c(self):
        return str(self.value) if self.value >= 0 else f"({self.value})"

    def cpsat(self, model, env):
        return self.value

    def bounds(self, ranges):
        return self.value, self.value


@dataclass(frozen=True)
class Var(Ix):
    name: str

    def variables(self):
        return frozenset({self.name})

    def evaluate(self, env):
        return env[self.name]

    def c(self):
        return self.name

    def cpsat(self, model, env):
        return env[self.name]

    def bounds(self, ranges):
        return ranges[self.name]


@dataclass(frozen=True)
class Sum(Ix):
    """const + sum of coef * part."""

    parts: tuple[tuple[int, Ix], ...]
    const: int = 0

    def variables(self):
        return frozenset().union(*(p.variables() for _, p in self.parts))

    def evaluate(self, env):
        total = np.int64(self.const)
        for coef, part in self.parts:
            total = total + coef * part.evaluate(env)
        return total

    def c(self):
        text = ""
        for coef, part in self.parts:
            term = part.c() if coef in (1, -1) else f"{abs(coef)} * {part.c()}"
            text += (" - " if coef < 0 else " + ") + term if text else ("-" if coef < 0 else "") + term
        if self.const:
            text += f" {'-' if self.const < 0 else '+'} {abs(self.const)}"
        return f"({text})"

    def cpsat(self, model, env):
        return sum(coef * part.cpsat(model, env) for coef, part in self.parts) + self.const

    def bounds(self, ranges):
        lo = hi = self.const
        for coef, part in self.parts:
            a, b = part.bounds(ranges)
            lo, hi = lo + min(coef * a, coef * b), hi + max(coef * a, coef * b)
        return lo, hi


@dataclass(frozen=True)
class _Extremum(Ix):
    """The least or the greatest of two expressions (subclasses name the operation)."""

    a: Ix
    b: Ix

    def variables(self):
        return self.a.variables() | self.b.variables()

    def evaluate(self, env):
        return self._numpy(self.a.evaluate(env), self.b.evaluate(env))

    def c(self):
        return f"{self._c_helper}({self.a.c()}, {self.b.c()})"

    def cpsat(self, model, env):
        value = model.NewIntVar(-BOUND, BOUND, "")
        getattr(model, self._cpsat_equality)(value, [_linear_var(model, self.a.cpsat(model, env)),
                                                     _linear_var(model, self.b.cpsat(model, env))])
        return value

    def bounds(self, ranges):
        (a0, a1), (b0, b1) = self.a.bounds(ranges), self.b.bounds(ranges)
        return self._python(a0, b0), self._python(a1, b1)


class Min(_Extremum):
    _numpy, _python = staticmethod(np.minimum), staticmethod(min)
    _c_helper, _cpsat_equality = "vmcu_min", "AddMinEquality"


class Max(_Extremum):
    _numpy, _python = staticmethod(np.maximum), staticmethod(max)
    _c_helper, _cpsat_equality = "vmcu_max", "AddMaxEquality"


@dataclass(frozen=True)
class _Division(Ix):
    """(a + bias) / divisor rounded down, for a >= 0: floor(a / d) with bias 0, ceil with d - 1."""

    a: Ix
    divisor: int

    def variables(self):
        return self.a.variables()

    def evaluate(self, env):
        return (self.a.evaluate(env) + self.bias) // self.divisor

    def c(self):
        return f"({self.a.c()} / {self.divisor})" if not self.bias else \
            f"(({self.a.c()} + {self.bias}) / {self.divisor})"

    def cpsat(self, model, env):
        value = model.NewIntVar(-BOUND, BOUND, "")
        model.AddDivisionEquality(value, _linear_var(model, self.a.cpsat(model, env) + self.bias), self.divisor)
        return value

    def bounds(self, ranges):
        lo, hi = self.a.bounds(ranges)
        return (lo + self.bias) // self.divisor, (hi + self.bias) // self.divisor


class FloorDiv(_Division):
    """floor(a / divisor) (the input channel of a depthwise output channel)."""

    bias = 0


class CeilDiv(_Division):
    """ceil(a / divisor) (in-bounds taps of a dilated window)."""

    @property
    def bias(self) -> int:
        return self.divisor - 1


def _linear_var(model, expr):
    """CP-SAT min/max/division take variables or linear expressions; constants become fixed vars."""
    if isinstance(expr, int):
        return model.NewConstant(expr)
    return expr


def _flatten(e: Ix) -> tuple[list[tuple[int, Ix]], int]:
    if isinstance(e, Const):
        return [], e.value
    if isinstance(e, Sum):
        return list(e.parts), e.const
    return [(1, e)], 0


def _make(parts: list[tuple[int, Ix]], const: int) -> Ix:
    merged: dict[Ix, int] = {}
    for coef, part in parts:
        merged[part] = merged.get(part, 0) + coef
    parts = [(c, p) for p, c in merged.items() if c]
    if not parts:
        return Const(const)
    if len(parts) == 1 and parts[0][0] == 1 and const == 0:
        return parts[0][1]
    return Sum(tuple(parts), const)


def _add(a: Ix, b: Ix) -> Ix:
    pa, ca = _flatten(a)
    pb, cb = _flatten(b)
    return _make(pa + pb, ca + cb)


def _scale(a: Ix, factor: int) -> Ix:
    parts, const = _flatten(a)
    return _make([(coef * factor, p) for coef, p in parts], const * factor)


def _folded(expr: Ix) -> Ix:
    """`expr`, or its value when it has no variables (descriptions fold their constants)."""
    return expr if expr.variables() else Const(int(expr.evaluate({})))


def imin(a: IxLike, b: IxLike) -> Ix:
    return _folded(Min(ix(a), ix(b)))


def imax(a: IxLike, b: IxLike) -> Ix:
    return _folded(Max(ix(a), ix(b)))


def ceil_div(a: IxLike, divisor: int) -> Ix:
    return ix(a) if divisor == 1 else _folded(CeilDiv(ix(a), divisor))


def floor_div(a: IxLike, divisor: int) -> Ix:
    return ix(a) if divisor == 1 else _folded(FloorDiv(ix(a), divisor))


def substitute(expr: Ix, name: str, value: IxLike) -> Ix:
    """`expr` with loop variable `name` replaced by `value` (the same access one iteration later...)."""
    value = ix(value)
    if isinstance(expr, Var):
        return value if expr.name == name else expr
    if isinstance(expr, Const):
        return expr
    if isinstance(expr, Sum):
        return _make([(coef, substitute(part, name, value)) for coef, part in expr.parts], expr.const) \
            if any(name in p.variables() for _, p in expr.parts) else expr
    if isinstance(expr, _Extremum):
        return type(expr)(substitute(expr.a, name, value), substitute(expr.b, name, value))
    if isinstance(expr, _Division):
        return type(expr)(substitute(expr.a, name, value), expr.divisor)
    raise TypeError(f"cannot substitute into {type(expr).__name__}")


def simplify(expr: Ix, ranges: Mapping[str, tuple[int, int]], loops=()) -> Ix:
    """`expr` with every min, max and division whose outcome the variables' ranges decide
    replaced by that outcome: `min(q + 1, 64) - q` is 1 when q <= 63. With `loops` (as for
    `loop_bounds`) a min or max is also decided through the loops' bound expressions:
    `min(8*q + 8 - u, 2)` is 2 for u from 8*q to 8*q + 6. The value is unchanged for every
    iteration; the C generator emits fewer operations and, more importantly, sees constant lane
    counts."""
    if isinstance(expr, Const):
        return expr
    if isinstance(expr, Var):
        lo, hi = expr.bounds(ranges)
        return Const(lo) if lo == hi else expr
    if isinstance(expr, Sum):
        total: Ix = Const(expr.const)
        for coef, part in expr.parts:
            total = total + simplify(part, ranges, loops) * coef
        if loops and total.variables():
            lo, hi = loop_bounds(total, loops, ranges)
            return Const(lo) if lo == hi else total
        return total
    if isinstance(expr, _Extremum):
        a, b = simplify(expr.a, ranges, loops), simplify(expr.b, ranges, loops)
        lo, hi = (a - b).bounds(ranges)
        if loops and lo < 0 < hi:
            lo, hi = loop_bounds(a - b, loops, ranges)
        first_wins = hi <= 0 if isinstance(expr, Min) else lo >= 0
        second_wins = lo >= 0 if isinstance(expr, Min) else hi <= 0
        return a if first_wins else b if second_wins else _folded(type(expr)(a, b))
    if isinstance(expr, _Division):
        divided = type(expr)(simplify(expr.a, ranges, loops), expr.divisor)
        lo, hi = divided.bounds(ranges)
        return Const(lo) if lo == hi else divided
    raise TypeError(f"cannot simplify {type(expr).__name__}")


def _linear_in(expr: Ix, name: str) -> int | None:
    """The coefficient of variable `name` in `expr` when it appears only as a top-level term, else None."""
    parts, _ = _flatten(expr)
    coef = 0
    for c, part in parts:
        if isinstance(part, Var) and part.name == name:
            coef += c
        elif name in part.variables():
            return None
    return coef


def _distribute(expr: Ix) -> Ix:
    """c * max(a, b) + rest -> max(c*a + rest, c*b + rest) (min for c < 0), for the one extremum of a
    sum: terms of the same variable inside and outside the extremum can then cancel."""
    parts, const = _flatten(expr)
    extrema = [(c, p) for c, p in parts if isinstance(p, _Extremum)]
    if len(extrema) != 1:
        return expr
    coef, ext = extrema[0]
    rest = _make([(c, p) for c, p in parts if p is not ext], const)
    kind = type(ext) if coef > 0 else (Max if isinstance(ext, Min) else Min)
    return kind(rest + ext.a * coef, rest + ext.b * coef)


def loop_bounds(expr: Ix, loops, ranges: Mapping[str, tuple[int, int]]) -> tuple[int, int]:
    """Bounds of `expr` within loops [(var, lo, hi_inclusive), ...] (outermost first) whose bounds
    are expressions of the outer variables: each variable, innermost first, is replaced by the bound
    that minimizes (or maximizes) the expression, the sum distributed over the bound's min or max,
    and simplified. Tighter than `bounds` (independent intervals) for window offsets like
    5*y + 5*ky with ky >= max(0, 1 - y); falls back to it where a variable is not linear."""
    low, high = expr, expr
    for var, lo, hi in reversed(list(loops)):
        for which in ("low", "high"):
            e = low if which == "low" else high
            coef = _linear_in(e, var)
            if coef is None:
                continue
            if coef:
                take_lo = (coef > 0) == (which == "low")
                e = simplify(_distribute(substitute(e, var, lo if take_lo else hi)), ranges)
            if which == "low":
                low = e
            else:
                high = e
    return low.bounds(ranges)[0], high.bounds(ranges)[1]
