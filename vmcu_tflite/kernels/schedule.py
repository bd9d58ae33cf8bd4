"""When each statement of a kernel runs: its instances and their times, all at once with numpy.

A statement inside loops v1 .. vd runs once per value of (v1, .., vd) allowed by the loop bounds.
Its *time* orders every statement instance of the kernel as the C executes them: the classic
2d+1 schedule (position in the body at depth 0, v1, position at depth 1, v2, ...; each loop
variable counted in iterations since its loop started), linearized
with fixed radices so that one int64 compares two instances. The interpreter replays memory
statements in this order; the planner's gap model (eq. 1) uses the same linear time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .index import Const, Ix
from .ir import MEMORY, Kernel, Loop, Stmt


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


Path = tuple  # a loop's position in the kernel tree: its index in each body from the root


def loop_range(loop: Loop, scope: dict[str, tuple[int, int]]) -> tuple[int, int]:
    """Static (least, greatest) value of `loop`'s variable, the enclosing ones within `scope`.

    A loop from a constant start by steps of k only takes values start + i*k: the greatest is the
    last of those below the end (`c` from 0 to 80 by 4 ends at 76), which keeps `min(80 - c, 4)`
    a constant 4 for the C generator."""
    lo, lo_max = loop.lo.bounds(scope)
    hi = max(lo, loop.hi.bounds(scope)[1] - 1)
    if loop.step > 1 and lo == lo_max:
        hi = lo + (hi - lo) // loop.step * loop.step
    return lo, hi


def loop_ranges(kernel: Kernel) -> dict[Path, tuple[int, int]]:
    """Every loop's static range, by path (loops in different nests may reuse a variable name)."""
    ranges: dict[Path, tuple[int, int]] = {}

    def visit(body, path, scope):
        for k, stmt in enumerate(body):
            if isinstance(stmt, Loop):
                ranges[path + (k,)] = loop_range(stmt, scope)
                visit(stmt.body, path + (k,), {**scope, stmt.var: ranges[path + (k,)]})

    visit(kernel.body, (), {})
    return ranges


def loop_paths(placed: Placed) -> list[Path]:
    """The path of each loop around `placed`, outermost first."""
    return [placed.positions[:d + 1] for d in range(len(placed.loops))]


@dataclass(frozen=True)
class Clock:
    """Radices of the linear time: per depth, body positions and loop-variable spans."""

    positions: tuple[int, ...]  # radix of the position digit at depth d
    spans: tuple[int, ...]  # radix of the loop variable digit at depth d (d >= 1)

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
    """The radices. A loop's digit counts its iterations since its start: where the start moves
    with the enclosing loops (rows made on demand, a segment's channels), the digit spans the
    loop's greatest trip, not every value the variable takes over the kernel, which keeps deep
    nests (a fused chain's rows inside rows) within 64 bits, as does leaving out the loops and
    statements that touch no memory (a channel loop of multiply-accumulates)."""
    ranges = loop_ranges(kernel)
    positions: dict[int, int] = {}
    spans: dict[int, int] = {}
    for placed in walk(kernel.body):
        if not _touches_memory(placed.stmt):  # only memory statements are ever timed
            continue
        depth = len(placed.loops)
        positions[depth] = max(positions.get(depth, 1), placed.positions[-1] + 1)
        if isinstance(placed.stmt, Loop):
            lo, hi = ranges[placed.positions]
            step = placed.stmt.step
            span = (hi - lo) // step + 1 if isinstance(placed.stmt.lo, Const) else _greatest_trip(placed)
            spans[depth + 1] = max(spans.get(depth + 1, 1), span)
    depth = max(positions) + 1
    return Clock(tuple(positions.get(d, 1) for d in range(depth)), tuple(spans.get(d, 1) for d in range(depth)))


def _touches_memory(stmt: Stmt) -> bool:
    if isinstance(stmt, Loop):
        return any(_touches_memory(s) for s in stmt.body)
    return isinstance(stmt, MEMORY)


def _greatest_trip(placed: Placed) -> int:
    """The most iterations of the loop `placed` in any one run of it."""
    loop, env = placed.stmt, instances(placed)
    lo, hi = values(loop.lo, env), values(loop.hi, env)
    return max(1, int(np.max(-(-(hi - lo) // loop.step), initial=0)))


def time_of(placed: Placed, env: dict, clk: Clock):
    """Linear time of `placed` at the loop values `env` (numpy arrays or CP-SAT expressions)."""
    pos_w, var_w = clk.weights()
    total = sum(p * pos_w[d] for d, p in enumerate(placed.positions))
    for d, loop in enumerate(placed.loops, start=1):
        total = total + _digit(loop, env) * var_w[d]
    return total


def digit_key(var: str) -> str:
    """Where a CP-SAT environment keeps loop `var`'s digit as a variable of its own: the start's
    min/max helpers range far beyond any time weight CP-SAT could multiply, and a step divides."""
    return f"{var}@digit"


def _digit(loop: Loop, env: dict):
    """The loop's iterations since its start: (value - start) / step."""
    if digit_key(loop.var) in env:
        return env[digit_key(loop.var)]
    return (env[loop.var] - loop.lo.evaluate(env)) // loop.step


def instances(placed: Placed) -> dict[str, np.ndarray]:
    """Every value of the enclosing loop variables at which `placed` runs, in execution order."""
    env: dict[str, np.ndarray] = {"__count__": np.int64(1)}
    for loop in placed.loops:
        env, _ = enter(loop, env)
    return env


def enter(loop: Loop, env: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The instances of `loop`'s body from those of the loop (`env`, in execution order): the
    body's loop variables, and for each body instance the index of the loop instance it runs in."""
    count = int(env["__count__"])
    lo = np.broadcast_to(np.asarray(loop.lo.evaluate(env), dtype=np.int64), (count,))
    hi = np.broadcast_to(np.asarray(loop.hi.evaluate(env), dtype=np.int64), (count,))
    trips = np.maximum(0, -(-(hi - lo) // loop.step))
    total = int(trips.sum())
    parent = np.repeat(np.arange(count, dtype=np.int64), trips)
    starts = np.repeat(np.cumsum(trips) - trips, trips)
    inner = {k: v[parent] for k, v in env.items() if k != "__count__"}
    inner[loop.var] = lo[parent] + loop.step * (np.arange(total, dtype=np.int64) - starts)
    inner["__count__"] = np.int64(total)
    return inner, parent


def values(expr: Ix, env: dict) -> np.ndarray:
    count = int(env["__count__"])
    return np.broadcast_to(np.asarray(expr.evaluate(env), dtype=np.int64), (count,))
