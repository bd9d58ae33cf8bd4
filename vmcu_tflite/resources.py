"""Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, CALL_ONCE) as state tensors.

A streaming model converted with resource variables keeps each variable's bytes in TFLite Micro's
`MicroResourceVariables`, not in a tensor. This module turns them into what the rest of the
converter already knows: one variable tensor per resource variable, kept in the state region
(`vmcu_tflite.state`), read by READ_VARIABLE steps and written by ASSIGN_VARIABLE steps, in the
model's operator order. What TFLite Micro does, and so what is done here:

- A variable is identified by VAR_HANDLE's `container` and `shared_name` (a missing container
  matches any), created in the order the handles are prepared: subgraph 0's first, then 1, 2, ...
  Its bytes are allocated by the first ASSIGN_VARIABLE prepared (the same order), as many as that
  op's value has, and filled with that value's zero point (0 without quantization). Every later
  READ_VARIABLE and ASSIGN_VARIABLE copies exactly those bytes (a different size is refused: TFLite
  Micro would copy past a tensor; a different type of the same size is copied as bytes, as TFLite
  Micro copies it). A variable read before any assignment holds that fill; one never assigned at
  all has no bytes (refused).
- CALL_ONCE runs its initialisation subgraph on the first invocation only, where the op stands in
  the operator order. `MicroInterpreter::Reset` refills every variable with its zero point and does
  not run CALL_ONCE again. The initialisation subgraph is evaluated here ahead of time: it may
  only assign constants (after folding, `vmcu_tflite.folding`) to variables; its values become the
  CALL_ONCE step's flash table, copied into the state region once (a flag word in the region
  remembers that it ran).

The VAR_HANDLE ops disappear (each is named with the first READ_VARIABLE or ASSIGN_VARIABLE of its
handle, for the reports); the resource tensor of a variable's first main-graph handle becomes the
variable tensor (the other handles' tensors are renamed to it).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from .errors import ModelError
from .folding import fold_constants
from .graph import Op, Tensor

RESOURCE_OPS = frozenset({"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "CALL_ONCE"})
VARIABLE_TYPES = ("int8",)  # what the state steps copy (other types are refused in one line)


@dataclass(frozen=True)
class Subgraph:
    """A further subgraph of the model: its operators and tensors (own tensor indices)."""

    ops: tuple[Op, ...]
    tensors: Mapping[int, Tensor]


def _text(value) -> str | None:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return value if isinstance(value, str) else None


def _handles(ops: Sequence[Op], where: str) -> dict[int, tuple[str | None, str]]:
    """Resource tensor -> (container, shared_name) of each VAR_HANDLE of one subgraph."""
    found = {}
    for op in ops:
        if op.kind != "VAR_HANDLE":
            continue
        name = _text(op.options.get("shared_name"))
        if not name or len(op.outputs) != 1 or op.inputs:
            raise ModelError(f"operator VAR_HANDLE at index {op.index}{where} needs a shared_name, no input and one "
                             "output (TFLite Micro identifies a variable by its name)")
        found[op.outputs[0]] = (_text(op.options.get("container")) or None, name)
    return found


def _check_handle(op: Op, tensors: Mapping[int, Tensor], where: str) -> None:
    """ASSIGN_VARIABLE's Prepare: its handle is a RESOURCE (or INT32) tensor of one element."""
    handle = tensors[op.inputs[0]] if op.inputs and op.inputs[0] >= 0 else None
    if handle is None or handle.dtype not in ("resource", "int32") or \
            int(np.prod(handle.shape, dtype=np.int64)) != 1:
        raise ModelError(f"operator ASSIGN_VARIABLE at index {op.index}{where}: its variable handle must be one "
                         "RESOURCE or INT32 element (TFLite Micro's Prepare checks it)")


def init_problem(sub: Subgraph) -> str:
    """'' when the initialisation subgraph only assigns values known ahead of time, else what it
    computes at run time."""
    ops, tensors = fold_constants(sub.ops, sub.tensors, ())
    computed = sorted({op.kind for op in ops if op.kind not in ("VAR_HANDLE", "ASSIGN_VARIABLE")})
    if computed:
        return f"computes {', '.join(computed)} at run time"
    resources = {t for op in ops if op.kind == "VAR_HANDLE" for t in op.outputs}
    for op in ops:
        if op.kind == "ASSIGN_VARIABLE":
            _check_handle(op, tensors, " of an initialisation subgraph")
            if len(op.inputs) != 2 or op.outputs or op.inputs[0] not in resources:
                return f"its ASSIGN_VARIABLE at index {op.index} does not assign a VAR_HANDLE's variable"
            if op.inputs[1] < 0 or not tensors[op.inputs[1]].is_constant:
                return f"its ASSIGN_VARIABLE at index {op.index} assigns a value that is not constant"
    return ""


class _Variables:
    """TFLite Micro's MicroResourceVariables, as far as conversion needs it."""

    def __init__(self) -> None:
        self.ids: list[tuple[str | None, str]] = []
        self.first_value: dict[int, Tensor] = {}  # the value of the first ASSIGN_VARIABLE prepared

    def find_or_create(self, container: str | None, name: str) -> int:
        for i, (c, n) in enumerate(self.ids):
            if n != name:
                continue
            if container is None or container == c:
                return i
            if c is None:  # TFLite Micro compares the new container with a missing one: it crashes
                raise ModelError(f"variable '{name}' has a handle with container '{container}' and one without; "
                                 "TFLite Micro cannot compare them")
        if any(n == name for _, n in self.ids):  # TFLite Micro's Python interpreter counts variables by name
            raise ModelError(f"two variables are named '{name}' (in different containers); TFLite Micro counts "
                             "variables by name and cannot hold both")
        self.ids.append((container, name))
        return len(self.ids) - 1


def _check_handle_uses(ops: Sequence[Op], handles: set[int], ports: set[int]) -> None:
    """A variable handle (a RESOURCE tensor) goes only from VAR_HANDLE to READ_VARIABLE's and
    ASSIGN_VARIABLE's first input: any other operator's Prepare refuses its type in TFLite Micro."""
    for op in ops:
        allowed = {"VAR_HANDLE": (), "READ_VARIABLE": (0,), "ASSIGN_VARIABLE": (0,)}.get(op.kind, ())
        used = [t for position, t in enumerate(op.inputs) if t in handles and position not in allowed]
        used += [t for t in op.outputs if t in handles and op.kind != "VAR_HANDLE"]
        if used:
            raise ModelError(f"operator {op.kind} at index {op.index} uses variable handle tensor {used[0]}; only "
                             "READ_VARIABLE and ASSIGN_VARIABLE take one")
    if handles & ports:
        raise ModelError(f"variable handle tensor {min(handles & ports)} is a graph input or output")


def resolve(ops: tuple[Op, ...], tensors: dict[int, Tensor], subgraphs: Sequence[Subgraph],
            accepted: Sequence[int], ports: set[int] = frozenset()) -> tuple[tuple[Op, ...], dict[int, Tensor],
                                                                          list[str]]:
    """The main graph with its resource variables as variable tensors (see the module docstring),
    and the blockers found: `subgraphs[k - 1]` is subgraph k, `accepted` the initialisation
    subgraphs that `init_problem` found evaluable, `ports` the graph's inputs and outputs."""
    if not any(op.kind in RESOURCE_OPS for op in ops):
        return ops, tensors, []
    variables = _Variables()
    handles = _handles(ops, "")
    _check_handle_uses(ops, set(handles), ports)
    var_of = {t: variables.find_or_create(*key) for t, key in handles.items()}
    init: dict[int, list[tuple[int, Tensor]]] = {}  # subgraph -> (variable id, constant value) per assignment
    sub_var_of: dict[int, dict[int, int]] = {}
    for k in sorted(accepted):  # their handles are prepared after the main graph's, in subgraph order
        folded_ops, sub_tensors = fold_constants(subgraphs[k - 1].ops, subgraphs[k - 1].tensors, ())
        sub_handles = _handles(folded_ops, f" of subgraph {k}")
        sub_var_of[k] = {t: variables.find_or_create(*key) for t, key in sub_handles.items()}
        init[k] = [(sub_var_of[k][op.inputs[0]], sub_tensors[op.inputs[1]]) for op in folded_ops
                   if op.kind == "ASSIGN_VARIABLE"]
    for op in ops:  # prepare order: the main graph's ASSIGN_VARIABLEs, then the initialisation subgraphs'
        if op.kind in ("READ_VARIABLE", "ASSIGN_VARIABLE") and (not op.inputs or op.inputs[0] not in var_of):
            raise ModelError(f"operator {op.kind} at index {op.index} reads no VAR_HANDLE's variable")
        if op.kind == "ASSIGN_VARIABLE":
            if len(op.inputs) != 2 or op.outputs or op.inputs[1] < 0:
                raise ModelError(f"operator ASSIGN_VARIABLE at index {op.index} needs 2 inputs and no output")
            _check_handle(op, tensors, "")
            variables.first_value.setdefault(var_of[op.inputs[0]], tensors[op.inputs[1]])
    for k in sorted(init):
        for var, value in init[k]:
            variables.first_value.setdefault(var, value)
    found: list[str] = []
    slot: dict[int, int] = {}  # variable id -> its tensor index in the main graph
    for t, var in var_of.items():
        slot.setdefault(var, t)
    new_tensors = dict(tensors)
    for var, t in slot.items():
        container, name = variables.ids[var]
        value = variables.first_value.get(var)
        if value is None:
            raise ModelError(f"variable '{name}' is read but never assigned (TFLite Micro holds no bytes for it)")
        new_tensors[t] = Tensor(index=t, name=name, shape=value.shape, dtype=value.dtype, quant=value.quant,
                                is_variable=True)
    bad_types = sorted({new_tensors[t].dtype for t in slot.values()} - set(VARIABLE_TYPES))
    if bad_types:
        names = [f"'{new_tensors[t].name}'" for t in slot.values() if new_tensors[t].dtype not in VARIABLE_TYPES]
        found.append(f"resource variable{'s' * (len(names) > 1)} {', '.join(names)} of type "
                     f"{'/'.join(d.upper() for d in bad_types)} (only int8 resource variables are supported)")
    new_ops = []
    handle_op = {op.outputs[0]: op.index for op in ops if op.kind == "VAR_HANDLE"}
    for op in ops:
        if op.kind == "VAR_HANDLE":
            continue
        if op.kind in ("READ_VARIABLE", "ASSIGN_VARIABLE"):
            variable = new_tensors[slot[var_of[op.inputs[0]]]]
            other = op.outputs[0] if op.kind == "READ_VARIABLE" and op.outputs else (
                op.inputs[1] if op.kind == "ASSIGN_VARIABLE" else None)
            if other is None or len(op.inputs) != (1 if op.kind == "READ_VARIABLE" else 2):
                raise ModelError(f"operator {op.kind} at index {op.index} has {len(op.inputs)} inputs and "
                                 f"{len(op.outputs)} outputs")
            _check_bytes(op, variable, new_tensors[other])
            # the handle's VAR_HANDLE is named with its first user, for the reports
            named = (handle_op.pop(op.inputs[0]),) if op.inputs[0] in handle_op else ()
            op = replace(op, inputs=(variable.index, *op.inputs[1:]), folded=op.folded + named)
        elif op.kind == "CALL_ONCE":
            op = _call_once(op, init, slot, new_tensors, len(subgraphs) + 1)
        new_ops.append(op)
    return tuple(new_ops), new_tensors, found


def _check_bytes(op: Op, variable: Tensor, other: Tensor) -> None:
    """READ_VARIABLE and ASSIGN_VARIABLE copy the variable's bytes: TFLite Micro checks the size
    only in debug builds, and copies past the tensor otherwise."""
    if other.holds_elements and variable.holds_elements and other.num_bytes == variable.num_bytes:
        return
    raise ModelError(f"operator {op.kind} at index {op.index}: tensor {other.index} '{other.name}' has "
                     f"{other.num_bytes if other.holds_elements else 'no'} bytes, variable '{variable.name}' "
                     f"{variable.num_bytes} (TFLite Micro copies the variable's bytes)")


def _call_once(op: Op, init: Mapping[int, list[tuple[int, Tensor]]], slot: Mapping[int, int],
               tensors: Mapping[int, Tensor], num_subgraphs: int) -> Op:
    """The CALL_ONCE op with its subgraph's values: `initial`, (variable tensor, int8 bytes) in
    assignment order, the last assignment of a variable only (the earlier ones are overwritten)."""
    index = op.options.get("init_subgraph_index", 0)
    if op.inputs or op.outputs or not 0 < index < num_subgraphs:
        raise ModelError(f"operator CALL_ONCE at index {op.index} calls subgraph {index} with {len(op.inputs)} inputs "
                         f"and {len(op.outputs)} outputs; TFLite Micro needs another subgraph, no input, no output")
    values: dict[int, np.ndarray] = {}
    for var, value in init.get(index, ()):
        if var not in slot:
            continue  # a variable the main graph never uses: nothing observes it
        variable = tensors[slot[var]]
        _check_bytes(op, variable, value)
        values.pop(variable.index, None)
        values[variable.index] = np.ascontiguousarray(value.data).view(np.int8).reshape(-1) \
            if value.holds_elements else np.zeros(0, np.int8)
    return replace(op, options=op.options.with_values(initial=tuple(values.items())))
