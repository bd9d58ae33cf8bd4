"""The yardstick report.md and memory.png hold each step against: its layers at whole-tensor level.

A fused chain is one step, but the whole-tensor plan of that step alone would count only the
chain's input and output, not the intermediates the chain never writes, and so suggest that
fusion costs RAM. What a user compares with is what the layers need apart, as TFLite Micro
would run them: the whole-tensor plan of the model's layers (one step per TFLite operator,
plan.json's `tensor_level_bytes`), each step of the plan against the largest footprint among
the layers it runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from .pipeline import Program
from .planner.tensor import plan_tensors
from .steps import build_steps


@dataclass(frozen=True)
class LayerBaseline:
    pool_bytes: int  # the whole-tensor plan of the layers
    footprints: tuple[int, ...]  # per step of the plan: the largest whole-tensor footprint of its layers


def layer_baseline(program: Program) -> LayerBaseline:
    layers = build_steps(program.graph)
    planned = plan_tensors(program.graph, layers)
    held = [(set(layer.ops), step.footprint_bytes) for layer, step in zip(layers, planned.steps)]
    footprints = tuple(max((bytes_ for ops, bytes_ in held if ops and ops <= set(step.ops)), default=0)
                       for step in program.plan.steps)
    return LayerBaseline(program.plan.tensor_level_bytes, footprints)
