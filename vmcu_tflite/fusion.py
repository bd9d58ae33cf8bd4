"""Fused multi-layer steps: chains of layers whose intermediates never reach the pool (paper 4.2).

A chain (`vmcu_tflite/chain.py`) is a run of consecutive convolution layers, each read only by the
next, optionally ended by a global average pool or by a residual ADD of the chain's own input.
MobileNetV2's inverted bottleneck (1x1 expand -> depthwise -> 1x1 project [+ input]) is one such
chain; so are MobileNetV1's depthwise/pointwise pairs and a DS-CNN from its stem to its pool.
`chain_runs` finds the longest runs; the planner chooses which parts of them to fuse
(`planner/fusion_choice.py`); `apply_fusion` replaces each chosen part by its one step.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from .chain import KIND, MAX_STAGES, LayerChainParams, chainable, is_global_average, is_transpose
from .graph import Graph
from .lifetimes import Dataflow
from .steps import Step
from .streamed_io import tensor_rows

CHAIN = "chain"  # the label of a chain in the fusion choices (plan.json's `fused_blocks`)


@dataclass(frozen=True)
class Block:
    """Consecutive step indices fused into one step."""

    steps: tuple[int, ...]
    recompute: bool = False  # the first stage's pixels recomputed per window instead of a ring
    pulls: int | None = None  # the streamed model input whose rows the chain pulls (streamed_io.py)
    line_ring: bool = False  # a pulling chain keeps the ring its last stage reads as a line buffer


def is_layer(step: Step) -> bool:
    """A convolution or depthwise layer a chain can hold: int8, or a 16x8 layer's int16 (a chain
    holds one element size only: `_element`, `chain_runs`)."""
    return step.kernel in ("CONV_2D", "DEPTHWISE_CONV_2D") and chainable(step.params)


def _element(graph: Graph, step: Step) -> int:
    """Bytes per element of the step's output: 2 for a 16x8 layer's or pool's int16, else 1."""
    t = graph.tensors[step.outputs[0]]
    return t.num_bytes // max(t.num_elements, 1)


def _starts_chain(step: Step) -> bool:
    """A layer, or a TRANSPOSE from NCHW to NHWC of one int8 image (it can only be a chain's first)."""
    return is_layer(step) or (step.kernel == "TRANSPOSE" and is_transpose(step.params)
                            and step.params.output_shape[0] == 1 and step.params.element_bytes == 1)


def _residual_add(graph: Graph, step: Step) -> bool:
    """An ADD of two activations of one shape (its output's): it may end a chain that starts at
    one operand and ends at the other (`_residual_of` says which chains)."""
    return (step.kernel == "ADD" and len(step.inputs) == 2 and step.params.constants == (None, None)
            and all(graph.tensors[t].shape == graph.tensors[step.outputs[0]].shape for t in step.inputs))


def _ends_chain(graph: Graph, step: Step) -> bool:
    """A global average pool (int8, or the int16 one after 16x8 layers), or a residual ADD (int8)."""
    return ((step.kernel in ("AVERAGE_POOL_2D", "AVERAGE_POOL_2D_S16") and is_global_average(step.params))
            or (_residual_add(graph, step) and _element(graph, step) == 1))


def _residual_of(graph: Graph, steps: Sequence[Step], members: Sequence[int]) -> bool | None:
    """For a part of a run that ends in an ADD: whether the chain's input is the ADD's first
    operand (True), its second (False); None when the ADD does not add the part's own input."""
    add, start = steps[members[-1]], graph.storage_of(steps[members[0]].inputs[0])
    storages = [graph.storage_of(t) for t in add.inputs]
    if len(members) < 2 or start not in storages or storages[0] == storages[1]:
        return None
    return storages[0] == start


def chain_runs(graph: Graph, steps: Sequence[Step]) -> list[tuple[int, ...]]:
    """Maximal runs of consecutive steps a chain can hold, each read only by the next; runs of two
    steps or more, all of one element size (int8 or int16). A TRANSPOSE only starts a run, a pool
    or an ADD only ends one."""
    flow = Dataflow(graph, steps)
    runs: list[list[int]] = []
    for step in steps:
        previous = steps[step.index - 1] if step.index else None
        link = (runs and runs[-1][-1] == step.index - 1
                and (is_layer(step) or _ends_chain(graph, step)) and not _ends_chain(graph, previous)
                and flow.only_reader(previous.outputs[0]) == step.index
                and _element(graph, step) == _element(graph, previous))
        if link:
            runs[-1].append(step.index)
        elif _starts_chain(step):
            runs.append([step.index])
    return [tuple(r) for r in runs if len(r) >= 2]




def chain_params(graph: Graph, steps: Sequence[Step], members: Sequence[int]) -> LayerChainParams | None:
    """The params of a chain of consecutive steps (a pool or an ADD only as the last), or None
    when the part cannot be one chain (an ADD of something else than the part's input, or more
    than MAX_STAGES stages)."""
    parts = [steps[i] for i in members]
    last = parts[-1]
    if last.kernel == "ADD":
        first = _residual_of(graph, steps, members)
        if first is None:
            return None
        params = LayerChainParams(tuple(s.params for s in parts[:-1]), add=last.params, residual_first=first)
    elif last.kernel in ("AVERAGE_POOL_2D", "AVERAGE_POOL_2D_S16"):
        params = LayerChainParams(tuple(s.params for s in parts[:-1]), pool=last.params)
    else:
        params = LayerChainParams(tuple(s.params for s in parts))
    return params if params.layers and len(params.stages) <= MAX_STAGES else None


def chain_step(graph: Graph, steps: Sequence[Step], members: tuple[int, ...], index: int,
               recompute: bool = False, pulls: int | None = None, line_ring: bool = False) -> Step:
    """The single LAYER_CHAIN step that replaces consecutive steps `members` (pulling the rows of
    streamed model input `pulls`, if given, with a line ring if `line_ring`)."""
    parts = [steps[i] for i in members]
    params = chain_params(graph, steps, members)
    params = None if params is None else replace(params, pulls_input=pulls)
    if (params is None or (recompute and not params.can_recompute())
            or (pulls is not None and not params.can_pull())):
        what = " that recomputes" if recompute else " that pulls its input" if pulls is not None else ""
        raise ValueError(f"steps {members} cannot be one chain{what}")
    params = replace(params, recompute=recompute, line_buffer=line_ring and pulls is not None)
    return Step(index=index, kernel=KIND, ops=tuple(sorted(op for s in parts for op in s.ops)),
                inputs=(parts[0].inputs[0],), outputs=parts[-1].outputs, params=params,
                macs=sum(s.macs for s in parts))


def push_outputs(graph: Graph, steps: Sequence[Step], outputs: Sequence[int], lone: bool = True) -> tuple[Step, ...]:
    """The steps with each streamed model output in `outputs` pushed row by row by the chain that
    makes it, from a ring of one row (`LayerChainParams.pushes_output`), where a chain that can
    push makes it and nothing else reads it; with `lone`, a layer alone making one becomes a
    chain of one for that. The others are pushed after their step, from their place in the pool."""
    flow, result = Dataflow(graph, steps), list(steps)
    for index in outputs:
        tensor = graph.outputs[index].tensor
        writers = flow.writers(tensor)
        if len(writers) != 1 or flow.readers(tensor):
            continue
        step, port = result[writers[0]], graph.tensors[tensor]
        if not (step.kernel == KIND or (lone and is_layer(step))):
            continue
        _, rows, cols, channels = graph.tensors[step.outputs[0]].shape
        if tensor_rows(port) != (rows, cols * channels):
            continue  # the application's rows are not the int8 rows the chain makes
        if step.kernel != KIND:
            step = chain_step(graph, result, (step.index,), step.index)
        if step.kernel == KIND and step.params.can_push() and step.params.pushes_output is None:
            result[step.index] = replace(step, params=replace(step.params, pushes_output=index))
    return tuple(result)


def apply_fusion(graph: Graph, steps: Sequence[Step], blocks: Sequence[Block]) -> tuple[Step, ...]:
    """The step list with each block replaced by its chain step, renumbered."""
    first = {b.steps[0]: b for b in blocks}
    inside = {i for b in blocks for i in b.steps}
    result: list[Step] = []
    for step in steps:
        if step.index in first:
            block = first[step.index]
            result.append(chain_step(graph, steps, block.steps, len(result), block.recompute, block.pulls,
                                     block.line_ring))
        elif step.index not in inside:
            result.append(replace(step, index=len(result)))
    return tuple(result)
