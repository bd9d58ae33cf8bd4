"""The op registry, derived from the op specs: every module here with a `SPEC` is a step kind.

Each module handles one TFLite op (its reference kernel is `vmcu_reference/ops/op_<same stem>.py`)
or one fused kind. RESHAPE, SQUEEZE and EXPAND_DIMS never become steps: the passes turn them into aliases of
their input's bytes.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from ..graph import Graph, Op
from .spec import OpSpec


def _discover() -> dict[str, OpSpec]:
    specs: dict[str, OpSpec] = {}
    kind_ids: dict[int, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        spec = getattr(importlib.import_module(f"{__name__}.{info.name}"), "SPEC", None)
        if spec is None:
            continue
        if spec.name in specs:
            raise ImportError(f"two specs for {spec.name}")
        if spec.kind_id is not None:
            if spec.kind_id in kind_ids:
                raise ImportError(f"{spec.name} and {kind_ids[spec.kind_id]} share vmcu_kind {spec.kind_id}")
            kind_ids[spec.kind_id] = spec.name
        specs[spec.name] = spec
    return specs


SPECS: dict[str, OpSpec] = _discover()
ALIAS_OPS = frozenset({"RESHAPE", "SQUEEZE", "EXPAND_DIMS"})
SUPPORTED_OPS = frozenset(name for name, spec in SPECS.items() if spec.is_tflite_op) | ALIAS_OPS
CUSTOM_OPS = frozenset(name for name, spec in SPECS.items() if spec.custom)


def state_positions(kind: str) -> frozenset[int]:
    """The input positions where `kind` keeps its state (empty for unknown and stateless kinds)."""
    spec = SPECS.get(kind)
    return spec.state_inputs if spec is not None else frozenset()


# the integer types a pool tensor may have besides int8: RESHAPE, SQUEEZE and EXPAND_DIMS only rename
# their bytes, whatever the type (an audio front end reshapes its int16 window)
POOL_INTEGER_TYPES = frozenset({"int16", "int32", "uint32", "uint64"})


def activation_types(kind: str) -> frozenset[str]:
    """The activation types besides int8 that `kind` reads or writes (empty for unknown kinds)."""
    if kind in ALIAS_OPS:
        return POOL_INTEGER_TYPES
    spec = SPECS.get(kind)
    return spec.activation_types if spec is not None else frozenset()


def prepare(graph: Graph, op: Op) -> Any:
    """Everything the op's kernel needs at run time, computed once from the graph."""
    return SPECS[op.kind].prepare(graph, op)


def macs(kind: str, params: Any) -> int:
    """Multiply-accumulates of conv, depthwise and fully connected kernels; 0 for other ops."""
    count = SPECS[kind].macs
    return count(params) if count is not None else 0
