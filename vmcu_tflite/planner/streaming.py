"""Which steps stream, over which inputs, with which segment size, and how close the output may start.

A step streams over an input that dies with it: its output may be written over input bytes the
step has already consumed. Kernels written in the kernel language (conv, depthwise, fully
connected, fused blocks) give the least input-to-output distance from their own loads and stores
(`vmcu_tflite/kernels/access.py`); the other kinds say how they walk their tensors
(`access_pattern`) and the gap solver turns that into the distance. Steps whose kernel has no
segment form (TRANSPOSE, RESIZE, a PAD of the innermost dimension, broadcasting operands) stay
whole-tensor.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod
from typing import Sequence

from ..graph import Graph
from ..kernels import describe, is_pointwise
from ..kernels.access import min_distance as kernel_distance
from ..kernels.access import output_after_workspaces
from ..kernels.planes import plane_bytes
from ..lifetimes import Buffer
from ..ops import SPECS
from ..plan import workspace_id
from ..steps import Step
from .access import AccessPattern
from .gap import min_distance
from .placement import Overlap
from .views import view_overlaps, view_steps

WHOLE_TENSOR_SEGMENT = 64  # the widest segment a whole-tensor GEMM takes: two rows of it are stack


# fused kinds that keep buffers of their own in the pool (`params.workspace_bytes`), streaming or not
WORKSPACE_KINDS = ("LAYER_CHAIN", "INT16_GROUP")


@dataclass(frozen=True)
class Stream:
    """The output of `step` may start `distance` bytes before `tensor` (an input that dies here).

    `exact`: the output must start exactly there (an in-place kernel writes each channel back
    where it read it).
    """

    step: int
    tensor: int
    distance: int
    exact: bool = False


@dataclass(frozen=True)
class StepStreaming:
    segment_bytes: int
    streams: tuple[Stream, ...]
    workspace_bytes: int = 0  # pool bytes the step needs for itself while it runs
    in_place: bool = False  # channel-plane depthwise: see `in_place_depthwise`
    output_over_workspace: bool = False  # the output may lie over the workspace: see `writes_output_last`


def writes_output_last(step: Step, segment: int) -> bool:
    """The step's kernel description is done with its workspace before it stores any output byte
    (a chain ending in a global average pool stores only the means, last), so the output may lie
    over the workspace's bytes. Offered to chains that pull a streamed input, whose pools are the
    tightest (there the means often sit at the peak beside the rings); the default plans keep the
    placement their published figures were measured with."""
    if getattr(step.params, "pulls_input", None) is None:
        return False
    kernel = describe(step.kernel, step.params, segment)
    return kernel is not None and output_after_workspaces(kernel)


def in_place_segments(channels: int) -> list[int]:
    """Channel segments an in-place depthwise step may use, largest (fewest passes) first."""
    return [channels] + [d for d in (16, 8, 4, 2, 1) if d < channels and channels % d == 0]


def in_place_workspace(step: Step, segment: int) -> int:
    """One channel segment's plane of the input (`planes.plane_bytes`)."""
    return plane_bytes(step.params, segment)


def in_place_depthwise(graph: Graph, step: Step, tensor: int) -> bool:
    """Depthwise with multiplier 1 can run channel segment by channel segment in place.

    It copies a channel segment's plane of its input into a workspace, then writes that segment
    of the output over the same channels (TinyEngine's in-place depthwise): the output shares the
    input's base and channel stride, and the step needs only segment x H x W extra bytes.
    """
    return (step.kernel == "DEPTHWISE_CONV_2D" and step.params.depth_multiplier == 1 and step.inputs[0] == tensor
            and getattr(step.params, "element", 1) == 1)  # int16 planes: not written (a 16x8 layer streams)


def access_pattern(graph: Graph, step: Step, tensor: int, segment: int) -> AccessPattern | None:
    """How `step` walks input `tensor` with `segment`-byte output segments; None if it cannot stream."""
    fn = SPECS[step.kernel].access
    return fn(graph, step, step.inputs.index(tensor), segment) if fn is not None else None


def stream_distance(graph: Graph, step: Step, tensor: int, segment: int, tile_rows: int = 1) -> int | None:
    """Least distance (bytes) the output may start before input `tensor`; None if it cannot stream.

    Kernels written in the kernel language give it from their own loads and stores (`tile_rows`:
    a GEMM's rows per tile); the others from their access pattern.
    """
    kernel = describe(step.kernel, step.params, segment, tile_rows=tile_rows)
    if kernel is not None:
        if step.inputs.index(tensor) != 0:
            return None
        return max(0, kernel_distance(kernel, "input0") or 0)
    pattern = access_pattern(graph, step, tensor, segment)
    return None if pattern is None else max(0, min_distance(pattern) or 0)


def stream_overlaps(graph: Graph, steps: Sequence[Step], streaming: dict[int, StepStreaming],
                    views: bool = False) -> list[Overlap]:
    """The placement's allowed overlaps: each step's output over the inputs it streams, and with
    `views` each slice that is a view pinned inside its input (`views.py`)."""
    return ([Overlap(graph.storage_of(s.tensor), graph.storage_of(steps[s.step].outputs[0]), s.distance, s.exact)
             for chosen in streaming.values() for s in chosen.streams]
            + [Overlap(workspace_id(k), graph.storage_of(steps[k].outputs[0]), 0)
               for k, chosen in sorted(streaming.items()) if chosen.output_over_workspace and chosen.workspace_bytes]
            + (view_overlaps(graph, steps) if views else []))


def default_segment(graph: Graph, step: Step) -> int:
    """The paper's choice: FC min(input row, output row); conv-like min(C_in, C_out); else the last dim
    (1 for a step that writes nothing in the pool: ASSIGN_VARIABLE, CALL_ONCE); in bytes, whole
    elements of a 16x8 layer's int16 activations."""
    if not step.outputs:
        return 1
    y = graph.tensors[step.outputs[0]]
    x = graph.tensors[step.inputs[0]] if step.inputs else y
    element = getattr(step.params, "element", 1)  # bytes per activation of a heavy layer (2: 16x8)
    if step.kernel == "FULLY_CONNECTED":
        return min(step.params.filter.shape) * element
    return max(1, min(x.shape[-1] if x.shape else 1, y.shape[-1] if y.shape else 1)) * element


def whole_tensor_segment(graph: Graph, step: Step, segment: int) -> int:
    """The segment of a step that streams nothing, `segment` so far. Its output never lands on its
    inputs, so the segment only sets the kernel's loops: a 1x1 convolution takes the widest segment
    that divides its output channels in groups of four, up to WHOLE_TENSOR_SEGMENT, where that is
    wider (fewer calls of the GEMM's channel loop and fewer stores, for a segment buffer at most
    that wide per row)."""
    if step.kernel != "CONV_2D" or not is_pointwise(step.params):
        return segment
    channels = graph.tensors[step.outputs[0]].shape[-1]
    e = getattr(step.params, "element", 1)  # bytes per channel (2: a 16x8 layer's int16)
    return max([segment] + [d * e for d in range(4, WHOLE_TENSOR_SEGMENT // e + 1, 4) if channels % d == 0])


def segment_candidates(graph: Graph, step: Step) -> list[int]:
    """The default and its halvings down to 4 bytes, largest first (fewer modulo wraps first),
    after a whole output pixel for a windowed convolution where that is larger (a stem: 3 input
    channels, 16 output ones): at the same cost a whole pixel wins, its channels paired without a
    remainder."""
    default = default_segment(graph, step)
    candidates = [default]
    y = graph.tensors[step.outputs[0]]
    element = getattr(step.params, "element", 1)  # bytes per channel of a heavy layer; halvings keep whole ones
    if step.kernel == "CONV_2D" and not is_pointwise(step.params) and y.shape[-1] * element > default:
        candidates.insert(0, y.shape[-1] * element)
    while candidates[-1] % (2 * element) == 0 and candidates[-1] // 2 >= 4:
        candidates.append(candidates[-1] // 2)
    return candidates


def choose_streaming(graph: Graph, steps: Sequence[Step], buffers: dict[int, Buffer],
                     segment_override: int | None = None, in_place_only: bool = False,
                     views: bool = False) -> dict[int, StepStreaming]:
    """Per step, the segment size that lets the output start closest to its dying inputs.

    `in_place_only` gives the TinyEngine-style baseline: whole tensors everywhere except depthwise
    convolutions, which run in place one channel at a time. With `views`, a slice that is a view
    (`views.py`) streams nothing: its output is pinned inside its input instead.
    """
    kept = {graph.storage_of(p.tensor) for p in graph.outputs}
    pinned = view_steps(graph, steps) if views else {}
    chosen: dict[int, StepStreaming] = {}
    for step in steps:
        if not step.outputs or step.index in pinned:  # it writes no pool byte (of its own)
            continue
        out = graph.tensors[step.outputs[0]]
        dying = [t for t in dict.fromkeys(step.inputs)
                 if buffers[graph.storage_of(t)].last == step.index and graph.storage_of(t) not in kept
                 and graph.storage_of(t) != graph.storage_of(step.outputs[0])]
        best: tuple[int, StepStreaming] | None = None
        sizes = [segment_override] if segment_override else segment_candidates(graph, step)
        for segment in [] if in_place_only else sizes:
            streams, cost = [], 0
            for t in dying:
                distance = stream_distance(graph, step, t, segment)
                if distance is None:
                    continue
                # Bytes beyond the larger of input and output that streaming still needs.
                cost += min(distance, out.num_bytes) - max(0, out.num_bytes - graph.tensors[t].num_bytes)
                if distance < out.num_bytes:  # otherwise placing the output apart is as good
                    streams.append(Stream(step.index, t, distance))
            if streams and (best is None or cost < best[0]):
                best = (cost, StepStreaming(segment, tuple(streams)))
        for t in dying:
            if not in_place_depthwise(graph, step, t):
                continue
            for segment in [1] if in_place_only else in_place_segments(step.params.input_shape[3]):
                # the baseline's planes are TinyEngine's, unpadded: a plan for its pool bytes, never run
                cost = prod(step.params.input_shape[:3]) if in_place_only else in_place_workspace(step, segment)
                if best is None or cost < best[0]:
                    best = (cost, StepStreaming(segment, (Stream(step.index, t, 0, exact=True),), cost, True))
        if step.kernel in WORKSPACE_KINDS:  # its rings (a group's block buffers) are needed whether it streams or not
            ring = step.params.workspace_bytes
            made = (replace(best[1], workspace_bytes=ring) if best is not None
                    else StepStreaming(default_segment(graph, step), (), ring))
            chosen[step.index] = replace(made, output_over_workspace=writes_output_last(step, made.segment_bytes))
        elif best is not None:
            chosen[step.index] = best[1]
    return chosen
