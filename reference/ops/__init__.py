"""The kernel registry: TFLite op name (or fused kind) -> reference kernel class.

Every `op_<stem>.py` here defines one `Kernel` subclass whose `kind` names the op; the stem is
shared with `vmcu_tflite/ops/<stem>.py`, whose spec's `prepare` builds the params the kernel is
constructed with. The registry is collected from the modules, and a test requires one kernel per
converter spec. RESHAPE and SQUEEZE have no kernel: they only rename bytes (see
`vmcu_tflite.passes`).
"""
from __future__ import annotations

import importlib
import pkgutil

from .base import Kernel


def _discover() -> dict[str, type[Kernel]]:
    kernels: dict[str, type[Kernel]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("op_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Kernel) and value.__module__ == module.__name__:
                if value.kind in kernels:
                    raise ImportError(f"two reference kernels for {value.kind}")
                kernels[value.kind] = value
    return kernels


KERNELS: dict[str, type[Kernel]] = _discover()


def make_kernel(kind: str, params) -> Kernel:
    return KERNELS[kind](params)
