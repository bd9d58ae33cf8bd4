"""What sets a plan's pool: the step that holds the most, and the bytes it holds, named.

A pool bound that cannot be met is explained by this arithmetic: the buffers live at the peak
step (the input a residual ADD still reads, the output written over consumed input), the rings
of a chain with their rows, and what the output shares with the input it consumes.
"""
from __future__ import annotations

from dataclasses import dataclass

from .pipeline import Program
from .plan import workspace_id


@dataclass(frozen=True)
class Part:
    what: str
    bytes: int


def peak_parts(program: Program) -> tuple[int, list[Part]]:
    """(peak step index, its parts); the parts add up to the step's footprint (an overlap of
    output and input is a negative part)."""
    plan, graph = program.plan, program.graph
    peak = max(plan.steps, key=lambda s: s.footprint_bytes)
    step = program.steps[peak.index]
    parts: list[Part] = []
    for buffer in plan.buffers.values():
        if buffer.tensor < 0 or not buffer.first <= peak.index <= buffer.last or buffer.size == 0:
            continue
        tensor = graph.tensors[buffer.tensor]
        role = ("its output" if buffer.tensor in map(graph.storage_of, step.outputs)
                else "its input" if buffer.tensor in map(graph.storage_of, step.inputs) else "live for a later step")
        shape = "x".join(map(str, tensor.shape))
        parts.append(Part(f"{tensor.name.split(';')[0]} ({shape}, {role})", buffer.size))
    ws = plan.buffers.get(workspace_id(peak.index))
    if ws is not None and ws.size:
        parts += _workspace_parts(step, ws.size)
    shared = sum(p.bytes for p in parts) - peak.footprint_bytes
    over_workspace = 0 if ws is None else sum(
        _common_bytes(plan, ws.tensor, graph.storage_of(t)) for t in step.outputs)
    if over_workspace:
        parts.append(Part("output written over the workspace once done with it", -over_workspace))
    if shared > over_workspace:
        parts.append(Part("written over input already consumed", over_workspace - shared))
    return peak.index, parts


def _common_bytes(plan, a: int, b: int) -> int:
    """Bytes of the pool that buffers a and b (both placed) share."""
    def span(t: int) -> set[int]:
        return {(plan.offsets[t] + k) % plan.pool_bytes for k in range(plan.buffers[t].size)}
    return len(span(a) & span(b)) if a in plan.buffers and b in plan.buffers else 0


def _workspace_parts(step, size: int) -> list[Part]:
    params = step.params
    if step.kernel == "INT16_GROUP":
        return [Part(f"workspace: {params.buffers} block buffers x {params.block} int16 elements", size)]
    if step.kernel != "LAYER_CHAIN":
        return [Part("workspace", size)]
    parts = []
    if params.input_ring_bytes:
        _, _, w, c = params.input_shape
        parts.append(Part(f"input ring: {params.input_ring_rows} rows x {w} x {c}", params.input_ring_bytes))
    for i, stage in enumerate(params.stages):
        ring = params.ring_bytes(stage)
        if not ring:
            continue
        _, _, w, c = params.stage_output(stage)
        if i == params.line_ring:
            rows = stage.ring_rows - 1
            parts.append(Part(f"ring {i}, a line buffer: ({rows} rows x {w} + {ring // c - rows * w} pixels) x {c}",
                              ring))
        else:
            bytes_ = "" if params.element == 1 else f" x {params.element} bytes"  # a 16x8 chain's int16 rows
            parts.append(Part(f"ring {i}: {stage.ring_rows} rows x {w} x {c}{bytes_}", ring))
    if params.output_ring_bytes:
        _, _, w, c = params.output_shape
        parts.append(Part(f"output ring: 1 row x {w} x {c}", params.output_ring_bytes))
    return parts


def explain_peak(program: Program) -> str:
    """One line: "step 2 (LAYER_CHAIN, ops 20-25): a (x) + b (y) + ... = N bytes"."""
    index, parts = peak_parts(program)
    step = program.plan.steps[index]
    ops = f"{step.ops[0]}-{step.ops[-1]}" if len(step.ops) > 1 else str(step.ops[0])
    terms = " + ".join(f"{p.bytes:,} {p.what}" if p.bytes >= 0 else f"- {-p.bytes:,} {p.what}" for p in parts)
    return f"step {index} ({step.kernel}, TFLite ops {ops}): {terms} = {step.footprint_bytes:,} bytes".replace(
        "+ -", "-")
