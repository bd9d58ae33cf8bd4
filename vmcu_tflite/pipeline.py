"""Model in, executable program out: read, simplify, prepare steps, plan memory."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .graph import Graph
from .passes import simplify
from .plan import Plan
from .planner import make_plan
from .reader import parse_model, read_model
from .steps import Step, build_steps


@dataclass(frozen=True)
class Program:
    """A simplified graph, its steps, and the memory plan that executes them."""

    graph: Graph
    steps: tuple[Step, ...]
    plan: Plan


def compile_graph(graph: Graph, planner: str = "vmcu") -> Program:
    simple = simplify(graph)
    steps = build_steps(simple)
    return Program(simple, steps, make_plan(simple, steps, planner))


def compile_model(model: str | Path | bytes, planner: str = "vmcu") -> Program:
    """A .tflite path or its bytes -> Program (raises ModelError for models we do not support)."""
    graph = parse_model(model) if isinstance(model, bytes) else read_model(model)
    return compile_graph(graph, planner)
