"""Whole-graph placement: base addresses of every buffer in a circular pool of P bytes.

For two buffers live at the same time, let d = (b_c - b_a) mod P. They are disjoint in the
circle exactly when size_a <= d <= P - size_c. An output Y that streams over a dying input X
(distance g from the gap solver) may instead take any d = (b_X - b_Y) mod P in [g, P - size_X]:
it starts at least g bytes before X and its tail never wraps onto X's unread end.

For a fixed P this is a CP-SAT feasibility model (one boolean per pair for the modulo); P itself
is found by bisection between a lower bound (the most any single step must hold) and a plan
known to work. Every solve runs single-threaded with a deterministic time budget, so the same
model always yields the same plan; an undecided solve counts as "does not fit". One plan's solves
share a `SolveBudget`, so a graph whose placements are hard to prove impossible (many parallel
branches) costs seconds, not minutes: once it is spent, nothing more is tried.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ortools.sat.python import cp_model

from ..lifetimes import Buffer


class SolveBudget:
    """CP-SAT's deterministic time (about a second of one core per unit) that one plan's solves
    share: at most `per_solve` each and `total` in all. Counted in deterministic units, not seconds,
    so the plan does not depend on the machine's speed or load."""

    def __init__(self, total: float = 2.0, per_solve: float = 1.0) -> None:
        self.remaining, self.per_solve = total, per_solve

    def grant(self) -> float:
        """The time the next solve may take (0: the budget is spent)."""
        return max(0.0, min(self.per_solve, self.remaining))

    def spend(self, used: float) -> None:
        self.remaining -= used


@dataclass(frozen=True)
class Overlap:
    """Y may start `distance` bytes before X (both storage tensors) instead of staying apart.

    With `exact`, Y must start exactly there (an in-place kernel). With `offset`, Y is a view:
    it starts exactly `offset` bytes after X's base, inside X, even while X is still live
    (`planner/views.py`).
    """

    x: int
    y: int
    distance: int
    exact: bool = False
    offset: int | None = None


def _pairs(buffers: Mapping[int, Buffer]) -> list[tuple[Buffer, Buffer]]:
    ordered = sorted(buffers.values(), key=lambda b: b.tensor)
    return [(a, c) for i, a in enumerate(ordered) for c in ordered[i + 1:] if a.first <= c.last and c.first <= a.last]


def step_bounds(buffers: Mapping[int, Buffer], overlaps: list[Overlap]) -> dict[int, int]:
    """Per step, the bytes it must hold at least: its live buffers, shared output bytes deducted."""
    steps = range(min(b.first for b in buffers.values()), max(b.last for b in buffers.values()) + 1)
    bounds = {}
    for step in steps:
        live = sum(b.size for b in buffers.values() if b.first <= step <= b.last)
        shared = {}
        for o in overlaps:
            y = buffers[o.y]
            if o.offset is not None:  # a view's bytes are its input's while both live
                x = buffers[o.x]
                if x.first <= step <= x.last and y.first <= step <= y.last:
                    shared[o.y] = y.size
            elif y.first == step:
                shared[o.y] = min(y.size, shared.get(o.y, 0) + y.size - min(o.distance, y.size))
        bounds[step] = live - sum(shared.values())
    return bounds


def lower_bound(buffers: Mapping[int, Buffer], overlaps: list[Overlap]) -> int:
    """No pool can be smaller than what one step must hold."""
    return max(step_bounds(buffers, overlaps).values())


def fits(buffers: Mapping[int, Buffer], overlaps: list[Overlap], pool: int, hint: Mapping[int, int] | None = None,
         budget: SolveBudget | None = None, unwrapped: frozenset[int] = frozenset()) -> dict[int, int] | None:
    """Base addresses in a pool of `pool` bytes, or None if none was found within the budget (a
    fresh `SolveBudget` when none is given).

    Buffers in `unwrapped` (the model's inputs and outputs, which the application reads and writes
    through plain pointers) must not cross the end of the pool; nor may a buffer of elements wider
    than a byte (`Buffer.align`), whose base is also a multiple of its element size, so that every
    element its kernels read or write is whole and aligned, unless its kernels copy what wraps or
    lies unaligned (`Buffer.wraps`: the 16x8 heavy layers' descriptions).
    """
    budget = budget if budget is not None else SolveBudget()
    if any(b.size > pool for b in buffers.values()) or budget.grant() <= 0:
        return None
    model = cp_model.CpModel()
    base = {t: model.NewIntVar(0, pool - 1, f"b{t}") for t in sorted(buffers)}
    first = min(buffers.values(), key=lambda b: (b.first, b.tensor))
    model.Add(base[first.tensor] == 0)  # the circle has no start: pin one buffer
    for t in sorted(unwrapped | {t for t, b in buffers.items() if b.align > 1 and not b.wraps}):
        model.Add(base[t] + buffers[t].size <= pool)
    for t, b in sorted(buffers.items()):
        if b.align > 1:
            model.AddModuloEquality(0, base[t], b.align)
    views = {(o.x, o.y): o.offset for o in overlaps if o.offset is not None}
    views |= {(y, x): None for x, y in list(views)}
    overlaps = [o for o in overlaps if o.offset is None]
    relaxed = {(o.x, o.y): o for o in overlaps} | {(o.y, o.x): None for o in overlaps}
    for a, c in _pairs(buffers):
        if (a.tensor, c.tensor) in views:
            x, y = (a, c) if views[(a.tensor, c.tensor)] is not None else (c, a)
            wrap = model.NewBoolVar(f"v{x.tensor}_{y.tensor}")  # b_y = b_x + offset, mod P
            model.Add(base[y.tensor] == base[x.tensor] + views[(x.tensor, y.tensor)] - pool * wrap)
            continue
        if (a.tensor, c.tensor) in relaxed:
            x, y = (a, c) if relaxed[(a.tensor, c.tensor)] is not None else (c, a)
            overlap = relaxed[(x.tensor, y.tensor)]
            low = min(overlap.distance, y.size)
            high = low if overlap.exact else pool - x.size
        else:
            x, y, low, high = c, a, a.size, pool - c.size
        if low > high:
            return None
        # d = (b_x - b_y) mod P
        wrap = model.NewBoolVar(f"w{x.tensor}_{y.tensor}")
        d = model.NewIntVar(low, high, f"d{x.tensor}_{y.tensor}")
        model.Add(d == base[x.tensor] - base[y.tensor] + pool * wrap)
    if hint:
        for t, v in hint.items():
            if t in base and v < pool:
                model.AddHint(base[t], v)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_deterministic_time = budget.grant()
    status = solver.Solve(model)
    budget.spend(solver.response_proto.deterministic_time)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    return {t: int(solver.Value(v)) for t, v in base.items()}


def smallest_pool(buffers: Mapping[int, Buffer], overlaps: list[Overlap], known: Mapping[int, int],
                  known_pool: int, budget: SolveBudget | None = None,
                  unwrapped: frozenset[int] = frozenset()) -> tuple[int, dict[int, int]]:
    """Bisect the pool size between the lower bound and a known valid placement."""
    budget = budget if budget is not None else SolveBudget()
    best_pool, best = known_pool, dict(known)
    low = lower_bound(buffers, overlaps)
    while low < best_pool:
        pool = (low + best_pool) // 2
        found = fits(buffers, overlaps, pool, best, budget, unwrapped)
        if found is None:
            low = pool + 1
        else:
            best_pool, best = pool, found
    return best_pool, best
