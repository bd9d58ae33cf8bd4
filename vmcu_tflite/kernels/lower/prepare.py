"""The description as the lowering reads it: index expressions simplified within their loops, and
loops with an interior hint cut into their edge and interior parts.

Done once before either pass of `lower`, on every instruction set alike: the C of each part then
has constant lane counts and no partial-segment clamps where none can bite.
"""
from __future__ import annotations

from dataclasses import replace

from ..c_text import greatest
from ..index import Const, Ix, simplify
from ..ir import Loop
from ..schedule import loop_range


def simplified(body, scope: dict[str, tuple[int, int]], loops: tuple = ()) -> tuple:
    """`body` with every index expression simplified within the loops around it (`index.simplify`:
    the variables' static ranges and the loops' bound expressions): partial-segment clamps that
    never bite disappear, lane counts become constants. The values are the same for every
    iteration the loops run."""
    out = []
    for stmt in body:
        if isinstance(stmt, Loop):
            for bounded in pieces(Loop(stmt.var, simplify(stmt.lo, scope, loops), simplify(stmt.hi, scope, loops), (),
                                       stmt.step, stmt.interior)):
                if bounded.lo.bounds(scope)[0] >= bounded.hi.bounds(scope)[1]:
                    continue  # runs no iteration (a line ring's piece outside this part of the row)
                inner = {**scope, bounded.var: loop_range(bounded, scope)}
                within = (*loops, (bounded.var, bounded.lo, greatest(bounded)))
                out.append(replace(bounded, body=simplified(stmt.body, inner, within)))
        else:
            out.append(replace(stmt, **{name: simplify(value, scope, loops) for name in stmt.__dataclass_fields__
                                        if isinstance(value := getattr(stmt, name), Ix)}))
    return tuple(out)


def pieces(loop: Loop) -> list[Loop]:
    """The loop, or with an `interior` hint and constant bounds its three parts in order: before,
    inside and after the interior (empty parts dropped). A loop of step s > 1 takes tiles of s
    values: the middle part holds the iterations whose whole tile [v, v + s) is interior, its
    bounds on the loop's own lattice so that every part runs the same values as the loop."""
    if loop.interior is None or not (isinstance(loop.lo, Const) and isinstance(loop.hi, Const)):
        return [replace(loop, interior=None)]
    lo, hi, s = loop.lo.value, loop.hi.value, loop.step
    a, b = (min(max(v, lo), hi) for v in loop.interior)
    first = lo + -(-(a - lo) // s) * s
    last = first + max(0, (b - s - first) // s + 1) * s  # one past the last interior tile's start
    if first >= last:
        return [replace(loop, interior=None)]
    return [replace(loop, lo=Const(p0), hi=Const(p1), interior=None)
            for p0, p1 in ((lo, first), (first, last), (last, hi)) if p0 < p1]
