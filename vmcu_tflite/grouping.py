"""Groups of int16 element-wise steps run as one INT16_GROUP step (`ops/int16_group.py`).

A group is a run of consecutive INT16_SIGMOID, INT16_UNARY and INT16_BINARY steps over tensors of
one shape (no constant operand, no broadcast) where every result but the last is read only inside
the run: those results then live in block buffers instead of the pool. `group_runs` finds, from
each start, the longest such run; `choose_groups` keeps a group where its step must hold fewer
bytes than the largest of its members' steps (as `planner/fusion_choice.py` keeps a chain), and
the pipeline keeps the grouped plan only where its pool is smaller. Groups are int16 only: the
int8 element-wise kinds are not members, so int8 plans never change.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .codegen.integrity import MAX_STEP_INPUTS
from .graph import Graph
from .lifetimes import Dataflow
from .ops.int16_group import BLOCK, KIND, MAX_MEMBERS, MEMBER_KINDS, GroupMember, Int16GroupParams
from .steps import Step

GROUP = "group"  # the label of a group in the fusion choices (plan.json's `fused_blocks`)


def is_member(graph: Graph, step: Step) -> bool:
    """An int16 element-wise step whose operands are activations of its output's shape."""
    if step.kernel not in MEMBER_KINDS or len(step.outputs) != 1:
        return False
    shape = graph.tensors[step.outputs[0]].shape
    if step.kernel == "INT16_BINARY" and (any(c is not None for c in step.params.constants) or len(step.inputs) != 2):
        return False
    return all(graph.tensors[t].shape == shape and graph.tensors[t].dtype == "int16" for t in step.inputs)


def _valid(graph: Graph, flow: Dataflow, steps: Sequence[Step], members: Sequence[int]) -> bool:
    """One shape; every result but the last read only by later members; few enough external inputs."""
    inside = set(members)
    shape = graph.tensors[steps[members[0]].outputs[0]].shape
    for i in members:
        if graph.tensors[steps[i].outputs[0]].shape != shape:
            return False
    for i in members[:-1]:
        out = steps[i].outputs[0]
        if flow.is_graph_output(out) or not set(flow.readers(out)) <= inside or len(flow.writers(out)) != 1:
            return False
    return len(_external(graph, steps, members)) <= MAX_STEP_INPUTS and len(members) <= MAX_MEMBERS


def _external(graph: Graph, steps: Sequence[Step], members: Sequence[int]) -> list[int]:
    """The tensors the members read that no member makes, in the order they are first read."""
    made = {graph.storage_of(steps[i].outputs[0]) for i in members}
    found: list[int] = []
    for i in members:
        for t in steps[i].inputs:
            if graph.storage_of(t) not in made and graph.storage_of(t) not in map(graph.storage_of, found):
                found.append(t)
    return found


def group_runs(graph: Graph, steps: Sequence[Step]) -> list[tuple[int, ...]]:
    """From each start, the longest run of consecutive member steps that is one group (two steps or
    more); the next search starts after it."""
    flow = Dataflow(graph, steps)
    runs, i = [], 0
    while i < len(steps):
        end = i
        while end < len(steps) and is_member(graph, steps[end]):
            end += 1
        best = next((b for b in range(end, i + 1, -1) if _valid(graph, flow, steps, range(i, b))), None)
        if best is None:
            i += 1
            continue
        runs.append(tuple(range(i, best)))
        i = best
    return runs


def group_params(graph: Graph, steps: Sequence[Step], members: Sequence[int], block: int = BLOCK) -> Int16GroupParams:
    """The members with their operands' sources: an external input, or the block buffer of an
    earlier member, each buffer reused once the value it held is read for the last time (a member
    may write over its own operand: every routine reads element i before it writes it)."""
    parts = [steps[i] for i in members]
    external = [graph.storage_of(t) for t in _external(graph, steps, members)]
    last_read = {}
    for position, step in enumerate(parts):
        for t in step.inputs:
            last_read[graph.storage_of(t)] = position
    holder: dict[int, int] = {}  # storage tensor -> block buffer
    free: list[int] = []
    used = 0
    result = []
    for position, step in enumerate(parts):
        sources = tuple(-1 - external.index(graph.storage_of(t)) if graph.storage_of(t) in external
                        else holder[graph.storage_of(t)] for t in step.inputs)
        for t in dict.fromkeys(map(graph.storage_of, step.inputs)):
            if t in holder and last_read[t] == position:
                free.append(holder.pop(t))
        out = graph.storage_of(step.outputs[0])
        if position == len(parts) - 1:
            buffer = -1
        elif free:
            buffer = free.pop(free.index(min(free)))
        else:
            buffer, used = used, used + 1
        if buffer >= 0:
            holder[out] = buffer
        result.append(GroupMember(step.kernel, step.params, step.inputs, step.outputs[0], sources, buffer))
    size = graph.tensors[parts[-1].outputs[0]].num_elements
    return Int16GroupParams(size=size, members=tuple(result), buffers=used, block=min(block, size))


def group_step(graph: Graph, steps: Sequence[Step], members: Sequence[int], index: int) -> Step:
    """The INT16_GROUP step that replaces consecutive steps `members`."""
    parts = [steps[i] for i in members]
    return Step(index=index, kernel=KIND, ops=tuple(sorted(op for s in parts for op in s.ops)),
                inputs=tuple(_external(graph, steps, members)), outputs=parts[-1].outputs,
                params=group_params(graph, steps, members), macs=sum(s.macs for s in parts))


def apply_groups(graph: Graph, steps: Sequence[Step], groups: Sequence[tuple[int, ...]]) -> tuple[Step, ...]:
    """The step list with each group replaced by its step, renumbered."""
    first = {g[0]: g for g in groups}
    inside = {i for g in groups for i in g}
    result: list[Step] = []
    for step in steps:
        if step.index in first:
            result.append(group_step(graph, steps, first[step.index], len(result)))
        elif step.index not in inside:
            result.append(replace(step, index=len(result)))
    return tuple(result)


def groups_by_ops(steps: Sequence[Step], ops: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The step indices of each group named by its TFLite operators (a saved plan's choices)."""
    return [tuple(s.index for s in steps if s.ops and set(s.ops) <= set(group)) for group in ops]
