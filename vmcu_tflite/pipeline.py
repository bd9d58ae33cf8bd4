"""Model in, executable program out: read, simplify, prepare steps, fuse, plan memory."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from .fusion import Block, apply_fusion, push_outputs
from .graph import Graph
from .grouping import GROUP, apply_groups, groups_by_ops
from .lifetimes import Dataflow
from .kernels.tuning import tuned
from .kernels.paired_weights import pair_weights
from .kernels.planes import taps_in_registers
from .kernels.widened_weights import widen_weights
from .ops.pulled_row import KIND as PULLED_ROW
from .passes import simplify
from .plan import Plan
from .planner.planners import PlansOnce
from .planner.fusion_choice import FusionChoice, choose_fusion, choose_groups
from .pulled_rows import pull_parts
from .reader import parse_model, read_model
from .steps import Step, build_steps
from .streamed_io import StreamedIO, StreamedPort, tensor_rows


@dataclass(frozen=True)
class Program:
    """A simplified graph, its steps, and the memory plan that executes them."""

    graph: Graph
    steps: tuple[Step, ...]
    plan: Plan


def compile_graph(graph: Graph, planner: str = "vmcu", fuse: bool = True, recompute: bool = False,
                  tuning: str = "dsp", stream_inputs: Sequence[int] = (), stream_outputs: Sequence[int] = (),
                  widened: float | None = None) -> Program:
    """Simplify, prepare the steps, fuse chains where it saves bytes (vMCU planner only), plan;
    the heavy kernels shaped for `tuning`'s cores (kernels/tuning.py), with int16 copies of 1x1
    filters adding at most `widened` of the filter bytes (kernels/widened_weights.py; None: its default).

    `recompute` allows the paper's recomputation; the plan that recomputes is taken only where
    its pool is smaller than the plan without (multiply-accumulates bought nothing otherwise): both
    compilations share their plans, so chains that recompute nothing are not planned twice."""
    plans = PlansOnce(simplify(graph))
    plain = _compile(plans, planner, fuse, False, tuning, stream_inputs, stream_outputs, widened)
    if not recompute:
        return plain
    allowed = _compile(plans, planner, fuse, True, tuning, stream_inputs, stream_outputs, widened)
    return allowed if allowed.plan.pool_bytes < plain.plan.pool_bytes else plain


def _compile(plans: PlansOnce, planner: str, fuse: bool, recompute: bool, tuning: str, stream_inputs: Sequence[int],
             stream_outputs: Sequence[int], widened: float | None) -> Program:
    """compile_graph's plan with or without recomputation.

    A chain runs within a few percent of its layers apart, faster or slower depending on the
    layers (BENCHMARKS.md, Latency), so fusion is kept to where the pool needs it: after
    planning, the chains whose layers apart never held more than the pool found are unfused
    again, and that plan is kept when its pool is no larger.

    `stream_inputs`/`stream_outputs`: the model's I/O indices that stream row by row
    (streamed_io.py). A streamed input costs the plan nothing where a chain starting at it pulls
    its rows into a ring; that plan is taken when its pool is smaller than the plan without."""
    simple = plans.graph
    layers = pair_weights(widen_weights(tuned(build_steps(simple), tuning), widened))
    pulled = {simple.storage_of(simple.inputs[i].tensor): i for i in stream_inputs}
    steps, fusion, plan = _fused_plan(plans, layers, planner, fuse, recompute, {})
    whole = plan.pool_bytes
    if pulled and planner == "vmcu" and fuse:
        # Chains that pull the streamed inputs into rings, where that lowers the pool; else the
        # rows are pulled into the input's place in the pool (the same plan as without streaming).
        # Line rings (chain.py) where they lower the pool further: they cost instructions.
        for line_rings in (False, True):
            trial = _fused_plan(plans, layers, planner, fuse, recompute, pulled, line_rings)
            if trial[2].pool_bytes < plan.pool_bytes:
                steps, fusion, plan = trial
        # A sequence UNPACKed into frames: each frame pulled just before the first step that reads it
        # (pulled_rows.py), where that lowers the pool.
        framed = pull_parts(simple, layers, pulled)
        if framed != layers:
            trial = _fused_plan(plans, framed, planner, fuse, recompute, pulled)
            if trial[2].pool_bytes < plan.pool_bytes:
                steps, fusion, plan = trial
    if stream_outputs and planner == "vmcu" and fuse:
        # The chain that makes a streamed output pushes its rows as it makes them, from a ring of
        # one row, where the pool is no larger; a layer alone becomes a chain of one for that only
        # where the pool gets smaller (its own kernel may be faster).
        for lone in (False, True):
            pushing = push_outputs(simple, steps, stream_outputs, lone)
            if pushing == steps:
                continue
            trial = plans(pushing, planner)
            if trial.pool_bytes < plan.pool_bytes or (not lone and trial.pool_bytes == plan.pool_bytes):
                steps, plan = pushing, trial
    # One meaning for tensor_level_bytes whatever was fused: the model's layers at whole-tensor level.
    baseline = plan.tensor_level_bytes if steps is layers else plans(layers, "tensor").pool_bytes
    streamed = streamed_ports(simple, steps, stream_inputs, stream_outputs)
    streamed = replace(streamed, pool_bytes_whole=whole) if streamed else streamed
    plan = replace(plan, fusion=fusion, tensor_level_bytes=baseline, tuning=tuning, streamed_io=streamed,
                   widened_weights=widened)
    in_place = _taps_per_plane(plan, layers)
    if any(getattr(s.params, "int16_weights", False) and set(s.ops) & in_place for s in layers):
        steps = _steps_for_plan(simple, plan)  # their widened filters' bytes go to other layers (the same plan)
    return Program(simple, steps, plan)


def _fused_plan(plans: PlansOnce, layers: tuple[Step, ...], planner: str, fuse: bool, recompute: bool,
                pulled: dict[int, int], line_rings: bool = False):
    """(steps, fusion choices, plan): the chains chosen (pulling the `pulled` inputs where they
    start at one, with line rings if `line_rings`), planned, then the chains the plan leaves room
    for unfused."""
    steps, fusion = layers, ()
    if planner == "vmcu" and fuse:
        steps, fusion = choose_fusion(plans.graph, layers, recompute, pulled, line_rings)
    plan = plans(steps, planner)
    # A chain that pulls a streamed input stays: apart, its layers would need the input whole.
    needed = tuple(replace(f, fused=f.fused and (f.unfused_bytes > plan.pool_bytes or f.pulls is not None))
                   for f in fusion)
    if needed != fusion:
        fewer = fuse_chosen(plans.graph, layers, needed)
        trial = plans(fewer, planner)
        if trial.pool_bytes <= plan.pool_bytes:
            steps, fusion, plan = fewer, needed, trial
    if planner == "vmcu" and fuse:
        # int16 element-wise groups (grouping.py), kept only where the pool gets smaller
        grouped, groups = choose_groups(plans.graph, steps)
        if any(g.fused for g in groups):
            trial = plans(grouped, planner)
            if trial.pool_bytes < plan.pool_bytes:
                steps, fusion, plan = grouped, fusion + groups, trial
    return steps, fusion, plan


def streamed_ports(graph: Graph, steps: Sequence[Step], inputs: Sequence[int], outputs: Sequence[int]) -> StreamedIO:
    """Where each streamed input is pulled (before the first step that reads it) and each
    streamed output pushed (after the step that makes it)."""
    flow = Dataflow(graph, steps)

    def port(index: int, tensor: int, step: int, ring: str) -> StreamedPort:
        rows, row_bytes = tensor_rows(graph.tensors[tensor])
        in_ring = getattr(steps[step].params, ring, None) == index if steps else False
        parts = bool(steps) and steps[step].kernel == PULLED_ROW
        return StreamedPort(index, rows, row_bytes, step, in_ring, parts)

    pulled = tuple(port(i, graph.inputs[i].tensor, min(flow.readers(graph.inputs[i].tensor), default=0),
                        "pulls_input") for i in sorted(set(inputs)))
    pushed = tuple(port(i, graph.outputs[i].tensor, max(flow.writers(graph.outputs[i].tensor), default=0),
                        "pushes_output") for i in sorted(set(outputs)))
    return StreamedIO(pulled, pushed) if pulled or pushed else StreamedIO()


def fuse_chosen(graph: Graph, steps: tuple[Step, ...], fusion: tuple[FusionChoice, ...]) -> tuple[Step, ...]:
    """`steps` (one per layer) with the chains, then the int16 element-wise groups, that `fusion`
    marks fused fused."""
    blocks = [Block(tuple(s.index for s in steps if set(s.ops) <= set(f.ops)), recompute=f.recompute, pulls=f.pulls,
                    line_ring=f.line_ring) for f in fusion if f.fused and f.label != GROUP]
    chained = apply_fusion(graph, steps, sorted(blocks, key=lambda b: b.steps))
    groups = [f.ops for f in fusion if f.fused and f.label == GROUP]
    return apply_groups(graph, chained, sorted(groups_by_ops(chained, groups))) if groups else chained


def program_for_plan(graph: Graph, plan: Plan) -> Program:
    """The steps a saved plan was made for (same simplification, same fused chains), with that plan."""
    simple = simplify(graph)
    return Program(simple, _steps_for_plan(simple, plan), plan)


def _steps_for_plan(simple: Graph, plan: Plan) -> tuple[Step, ...]:
    """The steps of `plan` over the simplified graph: its layers (the depthwise layers it runs in
    place with their taps in registers not widened, `widen_weights`), its chains, frames pulled and
    outputs pushed."""
    layers = tuned(build_steps(simple), plan.tuning)
    layers = pair_weights(widen_weights(layers, plan.widened_weights, _taps_per_plane(plan, layers)))
    framed = {simple.storage_of(simple.inputs[p.index].tensor): p.index for p in plan.streamed_io.inputs if p.parts}
    steps = fuse_chosen(simple, pull_parts(simple, layers, framed) if framed else layers, plan.fusion)
    return push_outputs(simple, steps, [p.index for p in plan.streamed_io.outputs if p.in_ring])


def _taps_per_plane(plan: Plan, layers: Sequence[Step]) -> frozenset[int]:
    """The ops of the depthwise layers (among `layers`) that `plan` runs in place in planes holding
    their taps in registers (`planes.taps_in_registers`): each tap loaded once per plane."""
    params = {s.ops: s.params for s in layers}
    return frozenset(op for s in plan.steps if s.in_place and s.ops in params
                     and taps_in_registers(params[s.ops], s.segment_bytes) for op in s.ops)


def compile_model(model: str | Path | bytes, planner: str = "vmcu", fuse: bool = True,
                  recompute: bool = False, tuning: str = "dsp", stream_inputs: Sequence[int] = (),
                  stream_outputs: Sequence[int] = (), widened: float | None = None) -> Program:
    """A .tflite path or its bytes -> Program (raises ModelError for models we do not support).
    `stream_inputs`/`stream_outputs`: the model's I/O indices that stream row by row (streamed_io.py)."""
    graph = parse_model(model) if isinstance(model, bytes) else read_model(model)
    return compile_graph(graph, planner, fuse, recompute, tuning, stream_inputs, stream_outputs, widened)
