"""The least distance between a streamed input and its output (paper eq. 1), solved with CP-SAT.

With the input at base b_in and the output at b_out = b_in - d, iteration j's write must never
land on a byte that a later iteration i reads:

    b_out + write_hi(j) <= b_in + read_lo(i)   for every j before i   (j < i in row-major order)

so the least valid d is  max over j < i of write_hi(j) - read_lo(i). Rather than enumerate the
pairs, CP-SAT maximizes that difference over the two iteration vectors themselves, subject to
the box bounds (the paper's H i + B < 0), the lexicographic order and the clipped affine access
functions. `brute_force_distance` evaluates the same definition on every iteration, for tests
and as the interpreter's ground truth.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from ortools.sat.python import cp_model

from .access import AccessPattern, Expr

NO_PAIR = None  # a single iteration: nothing is written before anything is read


def _expr_var(model: cp_model.CpModel, expr: Expr, iteration: list, name: str):
    """A CP-SAT linear expression equal to `expr` at `iteration` (clips become max/min equalities)."""
    total = expr.const
    for k, term in enumerate(expr.terms):
        linear = sum(w * v for w, v in zip(term.weights, iteration) if w) + term.offset
        if term.lo is None and term.hi is None:
            total += term.coef * linear
            continue
        bound = 1 << 40
        raw = model.NewIntVar(-bound, bound, f"{name}_raw{k}")
        model.Add(raw == linear)
        value = raw
        if term.lo is not None:
            low = model.NewIntVar(-bound, bound, f"{name}_lo{k}")
            model.AddMaxEquality(low, [value, term.lo])
            value = low
        if term.hi is not None:
            high = model.NewIntVar(-bound, bound, f"{name}_hi{k}")
            model.AddMinEquality(high, [value, term.hi])
            value = high
        total += term.coef * value
    return total


@lru_cache(maxsize=4096)
def min_distance(pattern: AccessPattern) -> int | None:
    """Least b_in - b_out (bytes) that keeps every read ahead of every earlier write; None if no pair."""
    if pattern.iterations < 2:
        return NO_PAIR
    model = cp_model.CpModel()
    i = [model.NewIntVar(0, d - 1, f"i{k}") for k, d in enumerate(pattern.dims)]
    j = [model.NewIntVar(0, d - 1, f"j{k}") for k, d in enumerate(pattern.dims)]
    strides = np.cumprod((1,) + pattern.dims[:0:-1])[::-1].tolist()
    model.Add(sum(s * v for s, v in zip(strides, j)) + 1 <= sum(s * v for s, v in zip(strides, i)))
    model.Maximize(_expr_var(model, pattern.write_hi, j, "w") - _expr_var(model, pattern.read_lo, i, "r"))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_deterministic_time = 30.0
    status = solver.Solve(model)
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"the gap model was not solved to optimality ({solver.StatusName(status)})")
    return int(round(solver.ObjectiveValue()))


def brute_force_distance(pattern: AccessPattern) -> int | None:
    """The same optimum by evaluating every iteration: max_j write_hi(j) - min_{i>j} read_lo(i)."""
    if pattern.iterations < 2:
        return NO_PAIR
    s = pattern.schedule()
    later_reads = np.minimum.accumulate(s["read_lo"][::-1])[::-1]  # min over i >= index
    return int(np.max(s["write_hi"][:-1] - later_reads[1:]))
