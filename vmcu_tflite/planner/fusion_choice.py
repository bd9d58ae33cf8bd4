"""Which blocks to fuse: each one whose fused step needs fewer bytes than its layers did.

The comparison is local and exact in kind: for every step, the bytes it must hold (live buffers,
its workspace, minus what its output may share with its streamed inputs) are computed with all
blocks fused and with none; a block is fused when its fused step's bound is below the largest
bound among its unfused steps. Both variants do the same multiply-accumulates, but a fused block
takes more instructions (its ring, its depthwise pixel by pixel): `pipeline.compile_graph`
unfuses again the blocks whose layers apart fit the pool the plan found.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..fusion import CHAIN, Block, apply_fusion, chain_params, chain_runs, find_blocks
from ..graph import Graph
from ..steps import Step
from .placement import step_bounds
from .vmcu import streamed_buffers


@dataclass(frozen=True)
class FusionChoice:
    ops: tuple[int, ...]  # TFLite operators of the block
    label: str  # "expand", "no-expand", "stem", "chain"
    fused: bool
    unfused_bytes: int  # the most any of its layers' steps must hold
    fused_bytes: int  # what its fused step must hold


def _bounds(graph: Graph, steps: Sequence[Step]) -> dict[int, int]:
    streamed = streamed_buffers(graph, steps)
    return step_bounds(streamed.buffers, streamed.overlaps)


def choose_fusion(graph: Graph, steps: Sequence[Step]) -> tuple[tuple[Step, ...], tuple[FusionChoice, ...]]:
    """The steps with the worthwhile blocks and chains fused, and the decision for every candidate."""
    unfused_bounds = _bounds(graph, steps)
    blocks, choices = _choose_blocks(graph, steps, unfused_bounds)
    chains, chain_choices = _choose_chains(graph, steps, blocks, unfused_bounds)
    if not blocks and not chains:
        return tuple(steps), choices + chain_choices
    return apply_fusion(graph, steps, blocks + chains), choices + chain_choices


def _choose_blocks(graph: Graph, steps: Sequence[Step], unfused_bounds: dict[int, int]) -> tuple[list[Block], tuple]:
    """The inverted bottlenecks whose fused step holds fewer bytes than their largest layer."""
    blocks = find_blocks(graph, steps)
    if not blocks:
        return [], ()
    all_fused = apply_fusion(graph, steps, blocks)
    fused_bounds = _bounds(graph, all_fused)
    fused_index = {s.ops: s.index for s in all_fused if s.kernel == "INVERTED_BOTTLENECK"}
    chosen: list[Block] = []
    choices = []
    for block in blocks:
        ops = tuple(sorted(op for i in block.steps for op in steps[i].ops))
        before = max(unfused_bounds[i] for i in block.steps)
        after = fused_bounds[fused_index[ops]]
        if after < before:
            chosen.append(block)
        choices.append(FusionChoice(ops, block.label, after < before, before, after))
    return chosen, tuple(choices)


def _choose_chains(graph: Graph, steps: Sequence[Step], blocks: list[Block],
                   bounds: dict[int, int]) -> tuple[list[Block], tuple]:
    """Which parts of the runs of convolution layers (`fusion.chain_runs`) to fuse as chains.

    Per run, a dynamic program over where chains start and end finds the least the run's
    largest step can be, each layer alone costing its exact bound and a chain its estimate
    (max(input, output) + its rings: the output lands on consumed input). The pool cannot go
    below the largest bound outside the runs, so a second pass takes, among the cuts that keep
    every part under max(that floor, the run's least), the one fusing the fewest layers (chains
    run slower than their layers apart). Each chosen chain is then kept only if its exact bound
    is below the largest of its layers'.
    """
    taken = {i for b in blocks for i in b.steps}
    runs = chain_runs(graph, steps, taken)
    if not runs:
        return [], ()
    blocked = _bounds(graph, apply_fusion(graph, steps, blocks)) if blocks else bounds
    in_runs = {steps[i].ops for run in runs for i in run}
    with_blocks = apply_fusion(graph, steps, blocks) if blocks else steps
    floor = max((blocked[s.index] for s in with_blocks if s.ops not in in_runs), default=0)
    candidates = []
    for run in runs:
        cost = _chain_costs(graph, steps, run, bounds)
        limit = max(floor, _least_largest(len(run), cost))
        candidates += [Block(run[a:b], CHAIN) for a, b in _fewest_fused(len(run), cost, limit) if b - a > 1]
    if not candidates:
        return [], ()
    fused = apply_fusion(graph, steps, blocks + candidates)
    fused_bounds = _bounds(graph, fused)
    at = {s.ops: s.index for s in fused if s.kernel == "LAYER_CHAIN"}
    kept, choices = [], []
    for block in candidates:
        ops = tuple(sorted(op for i in block.steps for op in steps[i].ops))
        before, after = max(bounds[i] for i in block.steps), fused_bounds[at[ops]]
        if after < before:
            kept.append(block)
        choices.append(FusionChoice(ops, CHAIN, after < before, before, after))
    return kept, tuple(choices)


def _chain_costs(graph: Graph, steps: Sequence[Step], run: tuple[int, ...], bounds: dict[int, int]) -> dict:
    """(a, b) -> what the part run[a:b] must hold: a layer's bound, a chain's estimate."""
    cost = {}
    for a in range(len(run)):
        for b in range(a + 1, len(run) + 1):
            if b - a == 1:
                cost[a, b] = bounds[run[a]]
                continue
            params = chain_params(steps, run[a:b])
            size = lambda t: graph.tensors[t].num_bytes  # noqa: E731
            cost[a, b] = max(size(steps[run[a]].inputs[0]), size(steps[run[b - 1]].outputs[0])) + params.workspace_bytes
    return cost


def _least_largest(n: int, cost: dict) -> int:
    """The least largest part over every cut of n layers into consecutive parts."""
    best = [0] + [math.inf] * n
    for b in range(1, n + 1):
        best[b] = min(max(best[a], cost[a, b]) for a in range(b))
    return best[n]


def _fewest_fused(n: int, cost: dict, limit: int) -> list[tuple[int, int]]:
    """The cut into parts [a, b) of at most `limit` each that fuses the fewest layers."""
    fused, back = [0] + [math.inf] * n, [0] * (n + 1)
    for b in range(1, n + 1):
        for a in range(b):
            total = fused[a] + (b - a if b - a > 1 else 0)
            if cost[a, b] <= limit and total < fused[b]:
                fused[b], back[b] = total, a
    parts, b = [], n
    while b:
        parts.append((back[b], b))
        b = back[b]
    return parts[::-1]
