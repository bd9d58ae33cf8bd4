"""Which C function each step calls: a generated one, or one of the runtime's hand-written kernels.

Steps whose kind has a kernel description (`vmcu_tflite.kernels.describe`: convolutions, depthwise,
fully connected, fused chains) call a function lowered from that description into
the model's C file, one per distinct configuration: steps whose descriptions lower to the same C
share it, so flash grows with the number of distinct layer shapes, not with the number of layers.
A function is lowered knowing which of its step's tensors the plan keeps in one piece, not
crossing the end of the pool: those are read through plain pointers, with no wrap test and no
copy buffer on the stack (the plan is static, so this is known here).
The other kinds call the runtime kernel of their kind (csrc/include/vmcu/vmcu_kernels.h).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..kernels import describe
from ..kernels.ir import Kernel
from ..kernels.lower import PRELUDE, function_block, lower
from ..ops import SPECS
from ..pipeline import Program
from ..plan import workspace_id

_PLACEHOLDER = "vmcu_generated_kernel"


@dataclass(frozen=True)
class Generated:
    """A generated function: its name, its description, the roles it reads whole, its first step."""

    name: str
    kernel: Kernel
    whole: frozenset[str]
    step: int


@dataclass(frozen=True)
class KernelFunctions:
    """Per step, the C function it calls (its vmcu_kernel is `<name>_kernel`) and whether it is
    generated; the generated functions' C, and what their checks and digests are made from
    (codegen/kernel_checks.py)."""

    names: tuple[str, ...]
    generated: tuple[bool, ...]
    source: str  # #includes and the generated functions ("" when there are none)
    functions: tuple[Generated, ...] = ()


def whole_roles(program: Program, step, kernel: Kernel) -> frozenset[str]:
    """The kernel's pool roles whose bytes lie in one piece in the step's plan (no wrap)."""
    plan, graph = program.plan, program.graph
    spans = {}
    if "output" in kernel.tensors:  # not where the kernel pushes its output from a ring
        spans["output"] = (graph.storage_of(step.outputs[0]), 0, kernel.tensors["output"])
    if "input0" in kernel.tensors:  # not where the kernel pulls its input into a ring
        spans["input0"] = (graph.storage_of(step.inputs[0]), 0, kernel.tensors["input0"])
    spans.update({w.name: (workspace_id(step.index), w.at, w.capacity) for w in kernel.workspaces})
    whole = frozenset(role for role, (buffer, at, size) in spans.items()
                      if plan.offsets[buffer] + at + size <= plan.pool_bytes)
    wraps = {w.name for w in kernel.workspaces if w.wraps}
    if not wraps <= whole:
        raise ValueError(f"step {step.index}: the plan puts a line ring across the end of the pool")
    return whole - wraps  # a line ring wraps at its own end: its reads and writes check for it


def kernel_functions(program: Program, prefix: str) -> KernelFunctions:
    names, generated = [], []
    functions: dict[str, tuple[str, Kernel, list[int]]] = {}  # lowered C (placeholder name) -> name, kernel, steps
    per_stem: Counter[str] = Counter()
    for step, planned in zip(program.steps, program.plan.steps):
        kernel = describe(step.kernel, step.params, planned.segment_bytes, planned.in_place, planned.tile_rows)
        if kernel is None:
            names.append(SPECS[step.kernel].c_kernel)
            generated.append(False)
            continue
        whole = whole_roles(program, step, kernel)
        text = lower(kernel, _PLACEHOLDER, whole)
        key = (text, whole)  # one check per function: the same C reading the same roles whole
        if key not in functions:
            functions[key] = (f"{prefix}_{kernel.name}_{per_stem[kernel.name]}", kernel, [])
            per_stem[kernel.name] += 1
        name, _, users = functions[key]
        users.append(step.index)
        names.append(name)
        generated.append(True)
    parts = [PRELUDE] if functions else []
    for (text, _), (name, kernel, users) in functions.items():
        note = f"; step{'s' if len(users) > 1 else ''} {', '.join(map(str, users))}"
        parts.append(function_block(kernel, text.replace(f" {_PLACEHOLDER}(", f" {name}(", 1), note))
    made = tuple(Generated(name, kernel, whole, users[0]) for (_, whole), (name, kernel, users) in functions.items())
    return KernelFunctions(tuple(names), tuple(generated), "".join(parts), made)
