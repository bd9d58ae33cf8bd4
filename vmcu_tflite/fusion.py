"""Fused multi-layer steps: inverted bottlenecks whose intermediates never reach the pool (paper 4.2).

A block is [CONV_2D] -> DEPTHWISE_CONV_2D -> 1x1 CONV_2D [-> ADD with the block input]:
MobileNetV2's inverted bottleneck (1x1 expand), the first block without expansion (no leading
conv), or a stem convolution (k x k, any stride) followed by the first block. The fused kernel
streams the block input row by row: the leading conv's output rows go to a ring of as many rows
as the depthwise window, and each depthwise output pixel is projected (and added to the
residual) at once, so only the ring and one pixel ever exist besides the block's input and
output. Every multiply-accumulate of the unfused layers is done exactly once.

Chains (`vmcu_tflite/chain.py`) generalize the idea to any run of convolution layers, each read
only by the next: `chain_runs` finds the longest such runs, and the planner chooses which parts
of them to fuse (`planner/fusion_choice.py`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from .chain import KIND as CHAIN_KIND, LayerChainParams, chainable, is_global_average
from .graph import Graph
from .ops.add import AddParams
from .ops.conv2d import Conv2DParams
from .ops.depthwise_conv2d import DepthwiseConv2DParams
from .ops.inverted_bottleneck import KIND
from .steps import Step


@dataclass(frozen=True, eq=False)
class InvertedBottleneckParams:
    expand: Conv2DParams | None  # the leading convolution (1x1 expand, or a stem), or None
    depthwise: DepthwiseConv2DParams
    project: Conv2DParams
    add: AddParams | None  # residual ADD of the block input, or None
    residual_first: bool  # the block input is the ADD's first operand

    @property
    def input_shape(self) -> tuple[int, ...]:
        return (self.expand or self.depthwise).input_shape

    @property
    def output_shape(self) -> tuple[int, ...]:
        return self.project.output_shape

    @property
    def ring_rows(self) -> int:
        """Rows of the leading conv's output kept at once: the depthwise window's height."""
        return self.depthwise.filter.shape[1] if self.expand is not None else 0

    @property
    def ring_bytes(self) -> int:
        _, _, w, c = self.depthwise.input_shape
        return self.ring_rows * w * c


@dataclass(frozen=True)
class Block:
    """Consecutive step indices forming one fusable block."""

    steps: tuple[int, ...]
    label: str  # "expand", "no-expand", "stem", or CHAIN


CHAIN = "chain"  # the label of a chain of layers (`vmcu_tflite/chain.py`)


def _only_consumer(graph: Graph, steps: Sequence[Step], tensor: int, consumer: int) -> bool:
    storage = graph.storage_of(tensor)
    if storage in {graph.storage_of(p.tensor) for p in graph.outputs}:
        return False
    readers = [s.index for s in steps if any(graph.storage_of(t) == storage for t in s.inputs)]
    return readers == [consumer]


def _pointwise(step: Step) -> bool:
    p = step.params
    return (step.kernel == "CONV_2D" and p.filter.shape[1:3] == (1, 1) and p.stride == (1, 1)
            and p.padding == (0, 0) and p.filter.shape[3] == p.input_shape[3])


def find_blocks(graph: Graph, steps: Sequence[Step]) -> list[Block]:
    """Every fusable block, in step order, none overlapping."""
    same = lambda a, b: graph.storage_of(a) == graph.storage_of(b)  # noqa: E731 (aliases share bytes)
    blocks: list[Block] = []
    taken: set[int] = set()
    for dw in steps:
        p = dw.params
        if dw.kernel != "DEPTHWISE_CONV_2D" or p.depth_multiplier != 1 or p.dilation != (1, 1):
            continue
        if p.input_shape[0] != 1 or dw.index + 1 >= len(steps) or dw.index in taken:
            continue
        project = steps[dw.index + 1]
        if not (_pointwise(project) and len(project.inputs) == 1 and same(project.inputs[0], dw.outputs[0])
                and _only_consumer(graph, steps, dw.outputs[0], project.index)):
            continue
        members = [dw.index, project.index]
        label = "no-expand"
        lead = steps[dw.index - 1] if dw.index > 0 else None
        if (lead is not None and lead.index not in taken and lead.kernel == "CONV_2D"
                and same(lead.outputs[0], dw.inputs[0]) and lead.params.input_shape[0] == 1
                and lead.params.filter.shape[3] == lead.params.input_shape[3] and lead.params.dilation == (1, 1)
                and _only_consumer(graph, steps, lead.outputs[0], dw.index)):
            members.insert(0, lead.index)
            label = "expand" if _pointwise(lead) else "stem"
        block_input = steps[members[0]].inputs[0]
        if project.index + 1 < len(steps):
            add = steps[project.index + 1]
            storages = sorted(graph.storage_of(t) for t in add.inputs)
            if (add.kernel == "ADD" and len(add.inputs) == 2 and add.params.constants == (None, None)
                    and storages == sorted((graph.storage_of(block_input), graph.storage_of(project.outputs[0])))
                    and graph.tensors[block_input].shape == graph.tensors[add.outputs[0]].shape
                    and _only_consumer(graph, steps, project.outputs[0], add.index)):
                members.append(add.index)
        blocks.append(Block(tuple(members), label))
        taken.update(members)
    return blocks


def fused_step(graph: Graph, steps: Sequence[Step], block: Block, index: int) -> Step:
    """The single step that replaces a block's steps."""
    parts = [steps[i] for i in block.steps]
    kinds = [s.kernel for s in parts]
    lead = parts[0] if kinds[0] == "CONV_2D" and kinds[1] == "DEPTHWISE_CONV_2D" else None
    dw = parts[1] if lead else parts[0]
    project = parts[2] if lead else parts[1]
    add = parts[-1] if kinds[-1] == "ADD" else None
    block_input = parts[0].inputs[0]
    params = InvertedBottleneckParams(
        expand=lead.params if lead else None, depthwise=dw.params, project=project.params,
        add=add.params if add else None,
        residual_first=bool(add and graph.storage_of(add.inputs[0]) == graph.storage_of(block_input)))
    return Step(index=index, kernel=KIND, ops=tuple(sorted(op for s in parts for op in s.ops)),
                inputs=(block_input,), outputs=parts[-1].outputs, params=params, macs=sum(s.macs for s in parts))


def apply_fusion(graph: Graph, steps: Sequence[Step], blocks: Sequence[Block]) -> tuple[Step, ...]:
    """The step list with each block (an inverted bottleneck, or a chain: label "chain") replaced
    by its fused step, renumbered."""
    first = {b.steps[0]: b for b in blocks}
    inside = {i for b in blocks for i in b.steps}
    result: list[Step] = []
    for step in steps:
        if step.index in first:
            block = first[step.index]
            result.append(chain_step(steps, block.steps, len(result)) if block.label == CHAIN
                          else fused_step(graph, steps, block, len(result)))
        elif step.index not in inside:
            result.append(replace(step, index=len(result)))
    return tuple(result)


def _chainable(step: Step) -> bool:
    return step.kernel in ("CONV_2D", "DEPTHWISE_CONV_2D") and chainable(step.params)


def _ends_chain(step: Step) -> bool:
    return step.kernel == "AVERAGE_POOL_2D" and is_global_average(step.params)


def chain_runs(graph: Graph, steps: Sequence[Step], taken: set[int]) -> list[tuple[int, ...]]:
    """Maximal runs of consecutive steps a chain can hold, each read only by the next, none in
    `taken` (already fused otherwise); runs of two steps or more."""
    runs: list[list[int]] = []
    for step in steps:
        link = (runs and runs[-1][-1] == step.index - 1 and step.index not in taken
                and (_chainable(step) or _ends_chain(step)) and not _ends_chain(steps[step.index - 1])
                and len(step.inputs) == 1 and _feeds_only(graph, steps, steps[step.index - 1], step))
        if link:
            runs[-1].append(step.index)
        elif step.index not in taken and _chainable(step):
            runs.append([step.index])
    return [tuple(r) for r in runs if len(r) >= 2]


def _feeds_only(graph: Graph, steps: Sequence[Step], producer: Step, consumer: Step) -> bool:
    """`producer`'s output is read by `consumer` alone and is not a graph output."""
    storage = graph.storage_of(producer.outputs[0])
    if graph.storage_of(consumer.inputs[0]) != storage or storage in {graph.storage_of(p.tensor) for p in graph.outputs}:
        return False
    return [s.index for s in steps if any(graph.storage_of(t) == storage for t in s.inputs)] == [consumer.index]


def chain_params(steps: Sequence[Step], members: Sequence[int]) -> LayerChainParams:
    """The params of a chain of consecutive steps (a global average pool only as the last)."""
    parts = [steps[i] for i in members]
    pool = parts.pop().params if _ends_chain(parts[-1]) else None
    return LayerChainParams(tuple(s.params for s in parts), pool)


def chain_step(steps: Sequence[Step], members: tuple[int, ...], index: int) -> Step:
    """The single LAYER_CHAIN step that replaces consecutive steps `members`."""
    parts = [steps[i] for i in members]
    return Step(index=index, kernel=CHAIN_KIND, ops=tuple(sorted(op for s in parts for op in s.ops)),
                inputs=parts[0].inputs, outputs=parts[-1].outputs,
                params=chain_params(steps, members), macs=sum(s.macs for s in parts))
