"""A memory plan: where every activation buffer lives in the pool and how each step streams.

This is what the reference interpreter executes, what the C code generator emits and what
`plan.json` records (the fields the interface contract names, plus the tensor table needed to
execute the plan again).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from .errors import UsageError
from .graph import Graph
from .lifetimes import Buffer
from .streamed_io import StreamedIO


def workspace_id(step: int) -> int:
    """Workspaces are buffers too; they take negative ids so they never clash with tensors."""
    return -1 - step


def workspace_step(buffer: int) -> int:
    return -1 - buffer


@dataclass(frozen=True)
class PlannedStep:
    index: int
    kernel: str
    ops: tuple[int, ...]
    segment_bytes: int
    gap_segments: int
    footprint_bytes: int
    macs: int
    # Inputs the output is written over as they are consumed; empty: the step reads whole tensors
    # and writes its output apart from them (kernels without a segment form, or no gain).
    streamed_inputs: tuple[int, ...] = ()
    in_place: bool = False  # channel segment by channel segment, output over input (depthwise)
    workspace_bytes: int = 0  # pool bytes the step uses for itself (buffer id -1 - index)
    tile_rows: int = 1  # a GEMM's input rows per weight pass (planner/tiles.py)

    @property
    def mode(self) -> str:
        if self.in_place:
            return "in-place"
        return "segment" if self.streamed_inputs else "whole-tensor"


@dataclass(frozen=True)
class Plan:
    model: str
    planner: str
    pool_bytes: int
    tensor_level_bytes: int
    offsets: Mapping[int, int]  # storage tensor -> base address in the pool
    buffers: Mapping[int, Buffer]
    steps: tuple[PlannedStep, ...]
    fusion: tuple = ()  # FusionChoice per candidate block (vMCU planner with fusion on)
    tuning: str = "dsp"  # the core family the kernels are shaped for (kernels/tuning.py)
    streamed_io: StreamedIO = StreamedIO()  # inputs pulled and outputs pushed row by row (streamed_io.py)
    # the share of the filter bytes the int16 copies of 1x1 filters may add (kernels/widened_weights.py); None:
    # its default
    widened_weights: float | None = None

    @property
    def macs(self) -> int:
        return sum(s.macs for s in self.steps)

    def to_json(self, graph: Graph) -> dict[str, Any]:
        def port(p):
            t = graph.tensors[p.tensor]
            scale, zero_point = t.io_quantization
            return {"tensor": p.tensor, "storage": graph.storage_of(p.tensor), "dtype": p.dtype, "pool_dtype": t.dtype,
                    "shape": list(p.shape), "scale": scale, "zero_point": zero_point}

        return {
            "model": self.model,
            "planner": self.planner,
            "pool_bytes": self.pool_bytes,
            "macs": self.macs,
            "tensor_level_bytes": self.tensor_level_bytes,
            "tuning": self.tuning,
            "inputs": [port(p) for p in graph.inputs],
            "outputs": [port(p) for p in graph.outputs],
            "tensors": [{"index": b.tensor, "name": graph.tensors[b.tensor].name if b.tensor >= 0
                         else f"workspace of step {workspace_step(b.tensor)}", "offset": self.offsets[b.tensor],
                         "bytes": b.size, "first_step": b.first, "last_step": b.last}
                        for b in self.buffers.values()],
            "steps": [dict(asdict(s), ops=list(s.ops), streamed_inputs=list(s.streamed_inputs), mode=s.mode)
                      for s in self.steps],
            "fused_blocks": [_fusion_json(f) for f in self.fusion],
            "state": _state_json(graph),
        } | ({"streamed_io": self.streamed_io.to_json()} if self.streamed_io else {}) | (
            {} if self.widened_weights is None else {"widened_weights": self.widened_weights})

    def dumps(self, graph: Graph) -> str:
        return json.dumps(self.to_json(graph), indent=1) + "\n"


def _fusion_json(choice) -> dict[str, Any]:
    """A fusion choice; `pulls` only for a chain that pulls a streamed input, `line_ring` only for
    one that keeps a line buffer (the plans of models without streaming stay as they were)."""
    found = dict(asdict(choice), ops=list(choice.ops))
    if found.get("pulls") is None:
        found.pop("pulls", None)
    if not found.get("line_ring"):
        found.pop("line_ring", None)
    return found


def _state_json(graph: Graph) -> dict[str, Any]:
    """The state region (informative: it is derived from the model, never read back)."""
    from .state import state_layout

    layout = state_layout(graph)
    return {"bytes": layout.bytes, "tag": layout.tag,
            "variables": [{"index": t, "name": graph.tensors[t].name, "offset": offset, "bytes": size,
                           "initial_byte": fill}
                          for (t, offset), (_, size, fill) in zip(layout.offsets.items(), layout.initial)],
            **({"call_once_flags": [{"op": op, "offset": offset} for op, offset in layout.flags.items()]}
               if layout.flags else {})}


def load_plan(text: str) -> Plan:
    """Read back a plan.json (to execute a plan that was written earlier or edited by hand)."""
    from .kernels.tuning import TUNINGS
    from .planner.fusion_choice import FusionChoice

    try:
        data = json.loads(text)
        buffers = {t["index"]: Buffer(t["index"], t["bytes"], t["first_step"], t["last_step"]) for t in data["tensors"]}
        plan = Plan(
            model=data["model"], planner=data["planner"], pool_bytes=int(data["pool_bytes"]),
            tensor_level_bytes=int(data["tensor_level_bytes"]),
            offsets={t["index"]: int(t["offset"]) for t in data["tensors"]}, buffers=buffers,
            steps=tuple(PlannedStep(**{k: v for k, v in s.items() if k != "mode"} | {
                "ops": tuple(s["ops"]), "streamed_inputs": tuple(s["streamed_inputs"])}) for s in data["steps"]),
            fusion=tuple(FusionChoice(**dict(f, ops=tuple(f["ops"]))) for f in data.get("fused_blocks", ())),
            tuning=str(data.get("tuning", "dsp")), streamed_io=StreamedIO.from_json(data.get("streamed_io")),
            widened_weights=None if data.get("widened_weights") is None else float(data["widened_weights"]))
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise UsageError(f"not a valid plan.json ({type(err).__name__}: {err})") from None
    if plan.tuning not in TUNINGS:
        raise UsageError(f"not a valid plan.json (tuning {plan.tuning!r}, not one of {', '.join(TUNINGS)})")
    if plan.widened_weights is not None and not 0 <= plan.widened_weights <= 1:
        raise UsageError(f"not a valid plan.json (widened_weights {plan.widened_weights}, not a share from 0 to 1)")
    return plan
