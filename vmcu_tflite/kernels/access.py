"""The planner's reading of a kernel description: paper eq. 1 over its own loads and stores.

With a streamed input at b_in and the output at b_out = b_in - d, a store executed before a load
must never land on a byte that load reads:

    b_out + (offset_S + length_S)(j) <= b_in + offset_L(i)   whenever time(j) < time(i)

for every RAMStore S of the output and every RAMLoad L of the input, where j and i range over
the statements' own loop nests (their bounds are the iteration domain's H i + B >= 0) and time
is the kernel's schedule. The least valid d is the largest difference; CP-SAT maximizes it over
the two statements' loop variables (one model per store/load pair). `brute_force_distance`
evaluates the same definition on every instance, for tests.
"""
from __future__ import annotations

import numpy as np
from ortools.sat.python import cp_model

from .ir import MEMORY, Kernel, Loop, RAMLoad, RAMStore
from .schedule import Clock, Placed, clock, digit_key, instances, loop_paths, loop_ranges, time_of, values, walk

NO_PAIR = None


def _statements(kernel: Kernel, kind, tensor: str) -> list[Placed]:
    return [p for p in walk(kernel.body) if isinstance(p.stmt, kind) and p.stmt.tensor == tensor]


def _loop_vars(model: cp_model.CpModel, placed: Placed, ranges, tag: str) -> dict:
    """CP-SAT variables of the loops around `placed`, and of their digits in the schedule's time
    (iterations since the loop's start: a variable of its own, see `schedule.digit_key`)."""
    env = {}
    for loop, path in zip(placed.loops, loop_paths(placed)):
        lo, hi = ranges[path]
        v = model.NewIntVar(lo, hi, f"{tag}{loop.var}")
        start = loop.lo.cpsat(model, env)
        model.Add(v >= start)
        model.Add(v <= loop.hi.cpsat(model, env) - 1)
        digit = model.NewIntVar(0, (hi - lo) // loop.step, f"{tag}{loop.var}_digit")
        model.Add(v == start + loop.step * digit)
        env[digit_key(loop.var)] = digit
        env[loop.var] = v
    return env


def _pair_distance(kernel: Kernel, ranges, clk: Clock, store: Placed, load: Placed) -> int | None:
    model = cp_model.CpModel()
    j = _loop_vars(model, store, ranges, "j_")
    i = _loop_vars(model, load, ranges, "i_")
    model.Add(store.stmt.length.cpsat(model, j) >= 1)
    model.Add(load.stmt.length.cpsat(model, i) >= 1)
    model.Add(load.stmt.runs.cpsat(model, i) >= 1)
    model.Add(time_of(store, j, clk) + 1 <= time_of(load, i, clk))
    model.Maximize(store.stmt.offset.cpsat(model, j) + store.stmt.length.cpsat(model, j)
                   - load.stmt.offset.cpsat(model, i))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_deterministic_time = 30.0
    status = solver.Solve(model)
    if status == cp_model.INFEASIBLE:
        return NO_PAIR
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"the gap model of {kernel.doc} was not solved to optimality ({solver.StatusName(status)})")
    return int(round(solver.ObjectiveValue()))


_SOLVED: dict[tuple, int | None] = {}


def min_distance(kernel: Kernel, tensor: str = "input0") -> int | None:
    """Least b_in - b_out (bytes) so that no store lands on input bytes still to be loaded; None if
    no store precedes any load. Equal descriptions are solved once."""
    key = (kernel.body, tensor)
    if key not in _SOLVED:
        _SOLVED[key] = _solve(kernel, tensor)
    return _SOLVED[key]


def _solve(kernel: Kernel, tensor: str) -> int | None:
    ranges, clk = loop_ranges(kernel), clock(kernel)
    found = [_pair_distance(kernel, ranges, clk, s, l) for s in _statements(kernel, RAMStore, "output")
             for l in _statements(kernel, RAMLoad, tensor)]
    found = [d for d in found if d is not None]
    return max(found) if found else NO_PAIR


def output_after_workspaces(kernel: Kernel) -> bool:
    """The kernel touches its workspaces (rings, the pulled input's rows) only before its first
    output store: its body's top-level statements run in order, and every one that touches a
    workspace comes before every one that stores the output (a chain ending in a global average
    pool sums its pixels in registers and stores the means last). The output may then lie over the
    workspace: nothing reads or writes the workspace once the output's bytes are written."""
    names = {w.name for w in kernel.workspaces}
    if not names:
        return False
    touches = [{s.tensor for s in _memory(stmt)} for stmt in kernel.body]
    last_workspace = max((k for k, t in enumerate(touches) if t & names), default=-1)
    first_output = min((k for k, t in enumerate(touches) if "output" in t), default=len(touches))
    return last_workspace < first_output


def _memory(stmt):
    """The memory statements in `stmt` (itself, or in a loop's body)."""
    if isinstance(stmt, MEMORY):
        yield stmt
    elif isinstance(stmt, Loop):
        for inner in stmt.body:
            yield from _memory(inner)


def brute_force_distance(kernel: Kernel, tensor: str = "input0") -> int | None:
    """The same optimum from every instance: max over stores of end - least later load start."""
    clk = clock(kernel)

    def events(kind, tensor_name, end: bool):
        times, marks = [], []
        for placed in _statements(kernel, kind, tensor_name):
            env = instances(placed)
            length = values(placed.stmt.length, env)
            keep = length > 0
            if kind is RAMLoad:
                keep &= values(placed.stmt.runs, env) > 0
            t = np.broadcast_to(np.asarray(time_of(placed, env, clk), np.int64), length.shape)
            mark = values(placed.stmt.offset, env) + (length if end else 0)
            times.append(t[keep])
            marks.append(mark[keep])
        return np.concatenate(times or [np.zeros(0, np.int64)]), np.concatenate(marks or [np.zeros(0, np.int64)])

    store_t, store_end = events(RAMStore, "output", True)
    load_t, load_start = events(RAMLoad, tensor, False)
    if not store_t.size or not load_t.size:
        return NO_PAIR
    order = np.argsort(load_t)
    later_min = np.minimum.accumulate(load_start[order][::-1])[::-1]
    k = np.searchsorted(load_t[order], store_t, side="right")
    valid = k < len(order)
    if not valid.any():
        return NO_PAIR
    return int(np.max(store_end[valid] - later_min[k[valid]]))

