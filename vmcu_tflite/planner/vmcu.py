"""The vMCU planner: segment-level overlap inside steps, circular placement across the graph.

1. Per step, `streaming` picks the segment size and, for each input that dies there, the least
   distance its output may start before it (paper eq. 1).
2. `placement` finds the smallest circular pool in which every buffer gets a base address such
   that live buffers never collide, except where a step's output may overlap its input.
The whole-tensor plan is both the baseline reported next to ours and the starting point of the
search, so the vMCU pool is never larger.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from ..graph import Graph
from ..kernels.planes import column_pair_planes, one_channel_planes_first
from ..lifetimes import Buffer, buffer_lifetimes
from ..ops.pulled_row import KIND as PULLED_ROW
from ..plan import Plan, PlannedStep, workspace_id
from ..steps import Step
from .footprint import step_footprints
from .placement import Overlap, SolveBudget, fits, smallest_pool
from .streaming import (StepStreaming, choose_streaming, default_segment, in_place_segments, in_place_workspace,
                        stream_overlaps, whole_tensor_segment)
from .tensor import plan_tensors
from .tiles import choose_tiles
from .views import view_steps


def _widen_in_place_segments(steps, streaming, buffers, overlaps, pool, offsets, io, budget):
    """Fewer, larger channel passes where the pool found allows them (the paper's tie-break:
    with the same pool bytes, fewer segments mean fewer modulo wraps and faster kernels), except
    where one-channel planes (`one_channel_planes_first`: taken where they fit, the workspace a tie
    may have given a wider plane) or two-channel planes of column pairs (`column_pair_planes`) are
    the layer's fastest form."""
    for k, chosen in sorted(streaming.items()):
        p = steps[k].params
        one_channel = chosen.in_place and one_channel_planes_first(p)
        if not chosen.in_place or (chosen.segment_bytes == 1 and one_channel):
            continue
        for segment in [1] if one_channel else [2] if column_pair_planes(p) else in_place_segments(p.input_shape[3]):
            if segment <= chosen.segment_bytes and not one_channel:
                break
            size = in_place_workspace(steps[k], segment)
            trial = buffers | {workspace_id(k): Buffer(workspace_id(k), size, k, k)}
            found = fits(trial, overlaps, pool, offsets, budget, unwrapped=io)
            if found is not None:
                streaming = streaming | {k: replace(chosen, segment_bytes=segment, workspace_bytes=size)}
                buffers, offsets = trial, found
                break
    return streaming, buffers, offsets


def _unwrapped_where_it_fits(buffers, overlaps, pool, offsets, budget):
    """The same pool with no buffer crossing its end, where a placement exists: every access then
    goes through plain pointers (a wrapped tensor costs a generated kernel up to a third more
    instructions). Done for plans whose chains pull streamed inputs, whose pools are the tightest;
    the default plans keep the placement their published figures were measured with."""
    every = frozenset(t for t, b in buffers.items() if b.size)
    found = fits(buffers, overlaps, pool, offsets, budget, unwrapped=every)
    return found if found is not None else offsets


@dataclass(frozen=True)
class Streamed:
    """Everything placement needs: buffers (workspaces included), allowed overlaps, per-step choices."""

    buffers: dict[int, Buffer]
    overlaps: list[Overlap]
    streaming: dict[int, StepStreaming]


def streamed_buffers(graph: Graph, steps: Sequence[Step], segment_override: int | None = None,
                     in_place_only: bool = False, views: bool = False) -> Streamed:
    buffers = buffer_lifetimes(graph, steps)
    streaming = choose_streaming(graph, steps, buffers, segment_override, in_place_only, views)
    overlaps = stream_overlaps(graph, steps, streaming, views)
    workspaces = {workspace_id(k): Buffer(workspace_id(k), c.workspace_bytes, k, k, _workspace_element(steps[k]))
                  for k, c in streaming.items() if c.workspace_bytes}
    return Streamed(buffers | workspaces, overlaps, streaming)


def _workspace_element(step: Step) -> int:
    """An int16 group's block buffers are int16 arrays its C reads through plain pointers: whole
    elements, never across the end of the pool (`_flat_workspace`)."""
    return 2 if step.kernel == "INT16_GROUP" else 1


def _flat_workspace(step: Step) -> bool:
    """The step's workspace is read through plain pointers: it never crosses the end of the pool."""
    return _streams_rows(step) or step.kernel == "INT16_GROUP"


def _streams_rows(step: Step) -> bool:
    """The step's kernel pulls or pushes rows of a model input or output through its workspace,
    where the application reads or writes each row as one run of bytes."""
    return any(getattr(step.params, name, None) is not None for name in ("pulls_input", "pushes_output"))


def plan_vmcu(graph: Graph, steps: Sequence[Step], segment_override: int | None = None,
              in_place_only: bool = False) -> Plan:
    """`in_place_only`: the TinyEngine-style baseline (whole tensors, in-place depthwise) instead.

    Where int16 slices could be views (`views.py`), the plan with them pinned is taken only if its
    pool is smaller: pinned parts leave the placement less freedom, and with the same pool the
    plan without them keeps the placement (and instruction counts) it had."""
    plain = _plan_vmcu(graph, steps, segment_override, in_place_only, False)
    if in_place_only or not view_steps(graph, steps):
        return plain
    viewed = _plan_vmcu(graph, steps, segment_override, in_place_only, True)
    return viewed if viewed.pool_bytes < plain.pool_bytes else plain


def _plan_vmcu(graph: Graph, steps: Sequence[Step], segment_override: int | None, in_place_only: bool,
               views: bool) -> Plan:
    """plan_vmcu's plan with or without the slices that are views pinned inside their inputs."""
    baseline = plan_tensors(graph, steps)
    streamed = streamed_buffers(graph, steps, segment_override, in_place_only, views)
    buffers, overlaps, streaming = streamed.buffers, streamed.overlaps, streamed.streaming
    # A known valid placement: the whole-tensor plan, with the workspaces after it.
    workspaces = [b for t, b in buffers.items() if t < 0]
    known = dict(baseline.offsets) | {b.tensor: baseline.pool_bytes for b in workspaces}
    known_pool = baseline.pool_bytes + max((b.size for b in workspaces), default=0)
    io = frozenset(graph.storage_of(p.tensor) for p in graph.inputs + graph.outputs) | frozenset(
        workspace_id(s.index) for s in steps if _flat_workspace(s) and workspace_id(s.index) in buffers) | frozenset(
        graph.storage_of(s.outputs[0]) for s in steps if s.kernel == PULLED_ROW)  # rows pulled and pushed whole
    budget = SolveBudget()
    pool, offsets = smallest_pool(buffers, overlaps, known, known_pool, budget, unwrapped=io)
    tiles = {}
    if not in_place_only:
        streaming, buffers, offsets = _widen_in_place_segments(steps, streaming, buffers, overlaps, pool, offsets, io,
                                                               budget)
        tiles, streaming, offsets = choose_tiles(graph, steps, streaming, buffers, pool, offsets, io, budget, views)
    if any(_streams_rows(s) for s in steps):
        # the overlaps the final streaming allows (the tiles may have widened some distances)
        offsets = _unwrapped_where_it_fits(buffers, stream_overlaps(graph, steps, streaming, views), pool, offsets,
                                           budget)
    footprints = step_footprints(buffers, offsets, pool)
    planned = []
    for step in steps:
        chosen = streaming.get(step.index)
        segment = chosen.segment_bytes if chosen else default_segment(graph, step)
        if not (chosen and chosen.streams):
            segment = whole_tensor_segment(graph, step, segment)
        gap = 0
        if chosen and chosen.streams and not chosen.in_place:
            # Bytes the step needs beyond the larger of its streamed input and its output.
            out = graph.tensors[step.outputs[0]]
            gap = max(max(0, s.distance - max(0, out.num_bytes - graph.tensors[s.tensor].num_bytes))
                      for s in chosen.streams)
        planned.append(PlannedStep(
            index=step.index, kernel=step.kernel, ops=step.ops, segment_bytes=segment,
            gap_segments=-(-gap // segment), footprint_bytes=footprints[step.index], macs=step.macs,
            streamed_inputs=tuple(s.tensor for s in chosen.streams) if chosen else (),
            in_place=bool(chosen and chosen.in_place), workspace_bytes=chosen.workspace_bytes if chosen else 0,
            tile_rows=tiles.get(step.index, 1)))
    return Plan(model=graph.name, planner="in-place-depthwise" if in_place_only else "vmcu", pool_bytes=pool, tensor_level_bytes=baseline.pool_bytes,
                offsets=offsets, buffers=buffers, steps=tuple(planned))
