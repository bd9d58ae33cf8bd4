"""Which blocks to fuse: each one whose fused step needs fewer bytes than its layers did.

The comparison is local and exact in kind: for every step, the bytes it must hold (live buffers,
its workspace, minus what its output may share with its streamed inputs) are computed with all
blocks fused and with none; a block is fused when its fused step's bound is below the largest
bound among its unfused steps. Both variants do the same multiply-accumulates, but a fused block
takes more instructions (its ring, its depthwise pixel by pixel): `pipeline.compile_graph`
unfuses again the blocks whose layers apart fit the pool the plan found.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..fusion import Block, apply_fusion, find_blocks
from ..graph import Graph
from ..steps import Step
from .placement import step_bounds
from .vmcu import streamed_buffers


@dataclass(frozen=True)
class FusionChoice:
    ops: tuple[int, ...]  # TFLite operators of the block
    label: str  # "expand", "no-expand", "stem"
    fused: bool
    unfused_bytes: int  # the most any of its layers' steps must hold
    fused_bytes: int  # what its fused step must hold


def _bounds(graph: Graph, steps: Sequence[Step]) -> dict[int, int]:
    streamed = streamed_buffers(graph, steps)
    return step_bounds(streamed.buffers, streamed.overlaps)


def choose_fusion(graph: Graph, steps: Sequence[Step]) -> tuple[tuple[Step, ...], tuple[FusionChoice, ...]]:
    """The steps with the worthwhile blocks fused, and the decision for every candidate block."""
    blocks = find_blocks(graph, steps)
    if not blocks:
        return tuple(steps), ()
    all_fused = apply_fusion(graph, steps, blocks)
    unfused_bounds, fused_bounds = _bounds(graph, steps), _bounds(graph, all_fused)
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
    return apply_fusion(graph, steps, chosen), tuple(choices)
