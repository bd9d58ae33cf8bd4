"""Which parts of the runs of layers to fuse into chains, so that the pool is smallest.

Every step's bound (the bytes it must hold: live buffers, its workspace, minus what its output may
share with its streamed inputs) is computed exactly for the layers apart. Per run of chainable
layers (`fusion.chain_runs`), a dynamic program over where chains start and end finds the least
the run's largest step can be, each layer alone costing its exact bound and a chain its estimate
(max(input, output) + its rings: the output lands on consumed input; input + output + rings
where a later step still reads the input). The pool cannot go below
the largest bound outside the runs, so a second pass takes, among the cuts that keep every part
under max(that floor, the run's least), the one fusing the fewest layers (the same
multiply-accumulates either way; `pipeline.compile_graph` then unfuses what the plan found leaves
room for). Each chosen chain is kept only if its exact bound is below the largest of its layers'.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

from ..fusion import CHAIN, Block, apply_fusion, chain_params, chain_runs, chain_step, is_layer
from ..graph import Graph
from ..steps import Step
from ..kernels import describe
from ..lifetimes import Dataflow
from ..kernels.schedule import clock
from .placement import step_bounds
from .streaming import segment_candidates
from .vmcu import streamed_buffers


@dataclass(frozen=True)
class FusionChoice:
    ops: tuple[int, ...]  # TFLite operators of the chain
    label: str  # "chain"
    fused: bool
    unfused_bytes: int  # the most any of its layers' steps must hold
    fused_bytes: int  # what its fused step must hold
    recompute: bool = False  # a stage recomputed per window instead of a ring (--allow-recompute)
    recomputed_macs: int = 0  # the multiply-accumulates that adds
    pulls: int | None = None  # the streamed model input it pulls row by row (streamed_io.py)
    line_ring: bool = False  # it keeps the ring its last stage reads as a line buffer (LayerChainParams.line_ring)


def _bounds(graph: Graph, steps: Sequence[Step]) -> dict[int, int]:
    streamed = streamed_buffers(graph, steps)
    return step_bounds(streamed.buffers, streamed.overlaps)


def choose_fusion(graph: Graph, steps: Sequence[Step], recompute: bool = False, pulled: dict[int, int] | None = None,
                  line_rings: bool = False) -> tuple[tuple[Step, ...], tuple[FusionChoice, ...]]:
    """The steps with the worthwhile chains fused, and the decision for every candidate chain.
    With `recompute`, a chain may drop a ring and recompute those pixels per window
    (paper section 5.2) where that makes its estimate smaller. `pulled`: storage tensor -> model
    input index of the streamed inputs; a chain that starts at one pulls its rows into a ring, so
    the input costs it no pool bytes (a lone layer reading one becomes a chain of one for that),
    and with `line_rings` keeps the ring its last stage reads as a line buffer."""
    pulled = pulled or {}
    flow = Dataflow(graph, steps)
    runs = _with_pulling_layers(graph, steps, flow, chain_runs(graph, steps), pulled)
    if not runs:
        return tuple(steps), ()
    bounds = _bounds(graph, steps)
    in_runs = {i for run in runs for i in run}
    floor = max((b for i, b in bounds.items() if i not in in_runs), default=0)
    candidates = []
    for run in runs:
        cost, plain, pulls = _chain_costs(graph, steps, flow, run, bounds, recompute, pulled, line_rings)
        limit = max(floor, _least_largest(len(run), cost))
        # recompute only where the ring does not fit
        candidates += [Block(run[a:b], plain[a, b] > limit, pulls.get((a, b)), line_rings and (a, b) in pulls)
                       for a, b in _fewest_fused(len(run), cost, limit, pulls) if b - a > 1 or (a, b) in pulls]
    candidates = [b for b in candidates if _schedule_fits(graph, steps, b)]
    if not candidates:
        return tuple(steps), ()
    fused = apply_fusion(graph, steps, candidates)
    fused_bounds = _bounds(graph, fused)
    at = {s.ops: s for s in fused if s.kernel == "LAYER_CHAIN"}
    kept, choices = [], []
    for block in candidates:
        ops = tuple(sorted(op for i in block.steps for op in steps[i].ops))
        before, after = max(bounds[i] for i in block.steps), fused_bounds[at[ops].index]
        if after < before:
            kept.append(block)
        choices.append(FusionChoice(ops, CHAIN, after < before, before, after, block.recompute,
                                    at[ops].params.recomputed_macs(), block.pulls, block.line_ring))
    return apply_fusion(graph, steps, kept), tuple(choices)


def _schedule_fits(graph: Graph, steps: Sequence[Step], block: Block) -> bool:
    """The chain's kernel, at its smallest segment, has a schedule the checks can time in 64 bits
    (MAX_STAGES keeps nearly every chain within it; this catches the rest)."""
    step = chain_step(graph, steps, block.steps, 0, block.recompute, block.pulls, block.line_ring)
    try:
        clock(describe(step.kernel, step.params, min(segment_candidates(graph, step)))).weights()
    except ValueError:
        return False
    return True


def _with_pulling_layers(graph: Graph, steps: Sequence[Step], flow: Dataflow, runs: list[tuple[int, ...]],
                         pulled: dict[int, int]) -> list[tuple[int, ...]]:
    """The runs, and a run of one for each layer outside them that alone reads a pulled input."""
    inside = {i for run in runs for i in run}
    for tensor in pulled:
        readers = flow.readers(tensor)
        if len(readers) == 1 and readers[0] not in inside and is_layer(steps[readers[0]]):
            runs = sorted(runs + [(readers[0],)])
    return runs


def _chain_costs(graph: Graph, steps: Sequence[Step], flow: Dataflow, run: tuple[int, ...],
                 bounds: dict[int, int], recompute: bool = False, pulled: dict[int, int] | None = None,
                 line_rings: bool = False) -> tuple[dict, dict, dict]:
    """(a, b) -> what the part run[a:b] must hold: a layer's bound, a chain's estimate (infinite
    for a part that cannot be one chain), the least of with and without recomputation where
    `recompute`; the same without recomputation; and the model input the part pulls, for the
    parts that start at a pulled input (their estimate: the output and the rings, the input's
    among them; with `line_rings`, the ring the last stage reads a line buffer)."""
    size = lambda t: graph.tensors[t].num_bytes  # noqa: E731
    cost, plain, pulls = {}, {}, {}
    for a in range(len(run)):
        for b in range(a + 1, len(run) + 1):
            params = chain_params(graph, steps, run[a:b])
            x, y = steps[run[a]].inputs[0], steps[run[b - 1]].outputs[0]
            index = (pulled or {}).get(graph.storage_of(x))
            if index is not None and params is not None and params.can_pull() and flow.readers(x) == [run[a]]:
                pulls[a, b] = index
                pulling = replace(params, pulls_input=index, line_buffer=line_rings)
                cost[a, b] = plain[a, b] = size(y) + pulling.workspace_bytes
                if recompute and pulling.can_recompute():
                    cost[a, b] = min(cost[a, b], size(y) + replace(pulling, recompute=True).workspace_bytes)
                continue
            if b - a == 1:
                plain[a, b] = bounds[run[a]]
            elif params is None:
                plain[a, b] = math.inf
            else:
                # the output lands on consumed input, unless a later step (a residual ADD) still reads it
                dies = set(flow.readers(x)) <= set(run[a:b]) and not flow.is_graph_output(x)
                plain[a, b] = (max(size(x), size(y)) if dies else size(x) + size(y)) + params.workspace_bytes
            cost[a, b] = plain[a, b]
            if recompute and params is not None and b - a > 1 and params.can_recompute():
                cost[a, b] -= params.ring_bytes(params.stages[0])
    return cost, plain, pulls


def _least_largest(n: int, cost: dict) -> int:
    """The least largest part over every cut of n layers into consecutive parts."""
    best = [0] + [math.inf] * n
    for b in range(1, n + 1):
        best[b] = min(max(best[a], cost[a, b]) for a in range(b))
    return best[n]


def _fewest_fused(n: int, cost: dict, limit: int, pulls: dict | None = None) -> list[tuple[int, int]]:
    """The cut into parts [a, b) of at most `limit` each that fuses the fewest layers."""
    fused, back = [0] + [math.inf] * n, [0] * (n + 1)
    for b in range(1, n + 1):
        for a in range(b):
            total = fused[a] + (b - a if b - a > 1 or (a, b) in (pulls or {}) else 0)
            if cost[a, b] <= limit and total < fused[b]:
                fused[b], back[b] = total, a
    parts, b = [], n
    while b:
        parts.append((back[b], b))
        b = back[b]
    return parts[::-1]


def choose_groups(graph: Graph, steps: Sequence[Step]) -> tuple[tuple[Step, ...], tuple[FusionChoice, ...]]:
    """The steps with the worthwhile int16 element-wise groups made one step (`grouping.py`), and the
    decision for every candidate: a group is kept where its step must hold fewer bytes than the
    largest of its members' steps."""
    from ..grouping import GROUP, apply_groups, group_runs

    runs = group_runs(graph, steps)
    if not runs:
        return tuple(steps), ()
    bounds = _bounds(graph, steps)
    grouped = apply_groups(graph, steps, runs)
    grouped_bounds = _bounds(graph, grouped)
    at = {s.ops: s.index for s in grouped}
    kept, choices = [], []
    for run in runs:
        ops = tuple(sorted(op for i in run for op in steps[i].ops))
        before, after = max(bounds[i] for i in run), grouped_bounds[at[ops]]
        if after < before:
            kept.append(run)
        choices.append(FusionChoice(ops, GROUP, after < before, before, after))
    return apply_groups(graph, steps, kept), tuple(choices)
