"""When each statement of a kernel runs: its instances and their times, all at once with numpy.

A statement inside loops v1 .. vd runs once per value of (v1, .., vd) allowed by the loop bounds.
Its *time* orders every statement instance of the kernel as the C executes them: the classic
2d+1 schedule (position in the body at depth 0, v1, position at depth 1, v2, ...), linearized
with fixed radices so that one int64 compares two instances. The interpreter replays memory
statements in this order; the planner's gap model (eq. 1) uses the same linear time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .index import Ix
from .ir import Kernel, Loop, Stmt


@dataclass(frozen=True)
class Placed:
    """A statement with the loops around it (outermost first) and its position at each depth."""

    stmt: Stmt
    loops: tuple[Loop, ...]
    positions: tuple[int, ...]  # len(loops) + 1 entries


def walk(body, loops=(), positions=()) -> Iterator[Placed]:
    for k, stmt in enumerate(body):
        yield Placed(stmt, loops, positions + (k,))
        if isinstance(stmt, Loop):
            yield from walk(stmt.body, loops + (stmt,), positions + (k,))


def variable_ranges(kernel: Kernel) -> dict[str, tuple[int, int]]:
    """Static (least, greatest) value of every loop variable."""
    ranges: dict[str, tuple[int, int]] = {}
    for placed in walk(kernel.body):
        if isinstance(placed.stmt, Loop):
            loop = placed.stmt
            lo = loop.lo.bounds(ranges)[0]
            hi = loop.hi.bounds(ranges)[1] - 1
            ranges[loop.var] = (lo, max(lo, hi))
    return ranges


@dataclass(frozen=True)
class Clock:
    """Radices of the linear time: per depth, body positions and loop-variable spans."""

    positions: tuple[int, ...]  # radix of the position digit at depth d
    spans: tuple[int, ...]  # radix of the loop variable digit at depth d (d >= 1)
    origins: dict  # loop var -> its least value (digit = value - origin)

    def weights(self) -> tuple[list[int], list[int]]:
        """Weight of the position digit and of the variable digit at each depth."""
        depth = len(self.positions)
        pos_w, var_w = [0] * depth, [0] * depth
        w = 1
        for d in range(depth - 1, -1, -1):
            pos_w[d] = w
            w *= self.positions[d]
            if d > 0:
                var_w[d] = w
                w *= self.spans[d]
        if w >= 1 << 62:
            raise ValueError("kernel loop nest too deep for a 64-bit schedule")
        return pos_w, var_w


def clock(kernel: Kernel) -> Clock:
    ranges = variable_ranges(kernel)
    positions: dict[int, int] = {}
    spans: dict[int, int] = {}

    def visit(body, depth):
        positions[depth] = max(positions.get(depth, 1), len(body))
        for stmt in body:
            if isinstance(stmt, Loop):
                lo, hi = ranges[stmt.var]
                spans[depth + 1] = max(spans.get(depth + 1, 1), hi - lo + 1)
                visit(stmt.body, depth + 1)

    visit(kernel.body, 0)
    depth = max(positions) + 1
    return Clock(tuple(positions.get(d, 1) for d in range(depth)),
                 tuple(spans.get(d, 1) for d in range(depth)), {v: r[0] for v, r in ranges.items()})


def time_of(placed: Placed, env: dict, clk: Clock):
    """Linear time of `placed` at the loop values `env` (numpy arrays or CP-SAT expressions)."""
    pos_w, var_w = clk.weights()
    total = sum(p * pos_w[d] for d, p in enumerate(placed.positions))
    for d, loop in enumerate(placed.loops, start=1):
        total = total + (env[loop.var] - clk.origins[loop.var]) * var_w[d]
    return total


def instances(placed: Placed) -> dict[str, np.ndarray]:
    """Every value of the enclosing loop variables at which `placed` runs, in execution order."""
    env: dict[str, np.ndarray] = {}
    count = 1
    for loop in placed.loops:
        lo = np.broadcast_to(np.asarray(loop.lo.evaluate(env), dtype=np.int64), (count,))
        hi = np.broadcast_to(np.asarray(loop.hi.evaluate(env), dtype=np.int64), (count,))
        trips = np.maximum(0, -(-(hi - lo) // loop.step))
        total = int(trips.sum())
        env = {k: np.repeat(v, trips) for k, v in env.items()}
        starts = np.repeat(np.cumsum(trips) - trips, trips)
        env[loop.var] = np.repeat(lo, trips) + loop.step * (np.arange(total, dtype=np.int64) - starts)
        count = total
    env["__count__"] = np.int64(count)
    return env


def values(expr: Ix, env: dict) -> np.ndarray:
    count = int(env["__count__"])
    return np.broadcast_to(np.asarray(expr.evaluate(env), dtype=np.int64), (count,))
