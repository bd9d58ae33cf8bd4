"""Model in, executable program out: read, simplify, prepare steps, fuse, plan memory."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .fusion import apply_fusion, find_blocks
from .graph import Graph
from .passes import simplify
from .plan import Plan
from .planner import make_plan
from .planner.fusion_choice import FusionChoice, choose_fusion
from .reader import parse_model, read_model
from .steps import Step, build_steps


@dataclass(frozen=True)
class Program:
    """A simplified graph, its steps, and the memory plan that executes them."""

    graph: Graph
    steps: tuple[Step, ...]
    plan: Plan


def compile_graph(graph: Graph, planner: str = "vmcu", fuse: bool = True) -> Program:
    """Simplify, prepare the steps, fuse blocks where it saves bytes (vMCU planner only), plan."""
    simple = simplify(graph)
    steps = build_steps(simple)
    fusion: tuple[FusionChoice, ...] = ()
    if planner == "vmcu" and fuse:
        steps, fusion = choose_fusion(simple, steps)
    plan = make_plan(simple, steps, planner)
    return Program(simple, steps, replace(plan, fusion=fusion))


def program_for_plan(graph: Graph, plan: Plan) -> Program:
    """The steps a saved plan was made for (same simplification, same fused blocks), with that plan."""
    simple = simplify(graph)
    steps = build_steps(simple)
    fused = {f.ops for f in plan.fusion if f.fused}
    blocks = [b for b in find_blocks(simple, steps) if tuple(sorted(op for i in b.steps for op in steps[i].ops)) in fused]
    return Program(simple, apply_fusion(simple, steps, blocks), plan)


def compile_model(model: str | Path | bytes, planner: str = "vmcu", fuse: bool = True) -> Program:
    """A .tflite path or its bytes -> Program (raises ModelError for models we do not support)."""
    graph = parse_model(model) if isinstance(model, bytes) else read_model(model)
    return compile_graph(graph, planner, fuse)
