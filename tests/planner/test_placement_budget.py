"""One plan's placement solves share a deterministic time budget (`planner.placement.SolveBudget`).

Without it, a graph of many parallel branches (an unrolled LSTM mutated by the fuzzer) spent about
18 s proving pool sizes impossible, one 5-unit solve per bisection step; the budget caps the whole
plan, in the solver's deterministic units, so plans stay reproducible on any machine.
"""
from __future__ import annotations

from vmcu_tflite.lifetimes import Buffer
from vmcu_tflite.planner.placement import SolveBudget, fits, smallest_pool

# Three buffers live together: no pool below 60 bytes holds them.
BUFFERS = {0: Buffer(0, 10, 0, 1), 1: Buffer(1, 20, 0, 1), 2: Buffer(2, 30, 1, 2)}
KNOWN = {0: 0, 1: 10, 2: 30}


def test_a_spent_budget_tries_nothing_more():
    spent = SolveBudget(total=0.0)
    assert fits(BUFFERS, [], 60, budget=spent) is None
    assert fits(BUFFERS, [], 60) is not None  # the same placement with a budget left


def test_each_solve_spends_from_the_shared_budget():
    budget = SolveBudget(total=1.0, per_solve=0.5)
    assert budget.grant() == 0.5
    assert fits(BUFFERS, [], 60, budget=budget) is not None
    assert budget.remaining < 1.0 and budget.grant() <= 0.5


def test_bisection_keeps_the_known_placement_when_the_budget_is_spent():
    pool, offsets = smallest_pool(BUFFERS, [], KNOWN, 100, SolveBudget(total=0.0))
    assert (pool, offsets) == (100, KNOWN)
    pool, _ = smallest_pool(BUFFERS, [], KNOWN, 100)
    assert pool == 60
