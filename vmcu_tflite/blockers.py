"""Everything in a model that this project cannot run yet, said in one line.

A refused model usually has several reasons (a GRU brings variable state; a float export
has float activations in every op and maybe an op we lack). Naming only the first one costs the
user one conversion attempt per reason, so the reader gathers all of them here before refusing.
Malformed models are a different matter: they are reported at the first defect found.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from .graph import Op, Tensor

# Why some operators users meet are refused (shown with them): the rest are simply not written yet.
WHY_UNSUPPORTED = {
    "RELU_N1_TO_1": "TFLite Micro has no kernel for it, so its output could not be checked",
}

_TYPE_NAMES = {"float32": "float", "float16": "float16", "int16": "int16"}
_FLOAT_TYPES = ("float", "float16")  # what full int8 quantization turns into int8
_CONVERSIONS = ("QUANTIZE", "DEQUANTIZE")
# Types of a whole quantization scheme (16x8) whose kernels come one operator at a time: each operator
# still without one is named, so that the line says which kernels the model waits for.
_BY_OPERATOR = ("int16",)


def unsupported_operators(ops: Sequence[Op], supported: Iterable[str], called: Sequence[Sequence[Op]] = ()) -> str:
    """Every operator kind the model needs that we lack, with the indices of its ops ("" when none).

    `called` holds the ops of subgraphs 1, 2, ... (TFLite Micro prepares every subgraph, so their
    operators are needed too); theirs are located as "subgraph 1 op 0", the main graph's as "op 0".
    """
    supported = set(supported)
    where: dict[str, dict[int, list[int]]] = {}
    for subgraph, sub_ops in enumerate((ops, *called)):
        for op in sub_ops:
            if op.kind not in supported:
                where.setdefault(op.kind, {}).setdefault(subgraph, []).append(op.index)
    if not where:
        return ""
    parts = [f"{kind} ({_locations(at)}{': ' + WHY_UNSUPPORTED[kind] if kind in WHY_UNSUPPORTED else ''})"
             for kind, at in where.items()]
    return f"unsupported operator{'s' * (len(parts) > 1)} {', '.join(parts)}"


def _locations(at: Mapping[int, list[int]]) -> str:
    return ", ".join(f"{f'subgraph {subgraph} ' if subgraph else ''}op{'s' * (len(indices) > 1)} "
                     f"{', '.join(map(str, indices))}" for subgraph, indices in at.items())


# The options through which an operator runs other subgraphs (TFLite Micro's control flow), and what each is.
_SUBGRAPH_ROLES = {
    "CALL_ONCE": (("init_subgraph_index", "initialisation"),),
    "WHILE": (("cond_subgraph_index", "condition"), ("body_subgraph_index", "body")),
    "IF": (("then_subgraph_index", "then branch"), ("else_subgraph_index", "else branch")),
}


def subgraph_roles(ops: Sequence[Op], called: Sequence[Sequence[Op]]) -> dict[int, list[str]]:
    """Subgraph k (1, 2, ...) -> what runs it ("CALL_ONCE's initialisation", "WHILE's body", ...)."""
    roles: dict[int, list[str]] = {k: [] for k in range(1, len(called) + 1)}
    for op in (op for sub_ops in (ops, *called) for op in sub_ops):
        for option, role in _SUBGRAPH_ROLES.get(op.kind, ()):
            roles.setdefault(op.options.get(option, 0), []).append(f"{op.kind}'s {role}")
    return roles


INIT_ROLE = "CALL_ONCE's initialisation"


def subgraphs(ops: Sequence[Op], called: Sequence[Sequence[Op]], init_problems: Mapping[int, str]) -> str:
    """The further subgraphs this project cannot run, with the role each has ("" when none).

    A subgraph that only CALL_ONCE runs is its initialisation: accepted when it assigns values
    known ahead of time (`init_problems[k]` is "", `vmcu_tflite.resources`), else named with what it
    computes. The operators that call subgraphs (WHILE, IF) are refused with the others; this
    names the feature itself (a further subgraph that no operator calls is still prepared by
    TFLite Micro, so it is named too).
    """
    if not called:
        return ""
    roles = subgraph_roles(ops, called)
    refused = []
    for k in range(1, len(called) + 1):
        role = roles.get(k) or ["called by no operator"]
        if set(role) == {INIT_ROLE} and not init_problems.get(k, "?"):
            continue
        problem = init_problems.get(k, "") if set(role) == {INIT_ROLE} else ""
        refused.append(f"subgraph {k}: {' and '.join(role)}{', which ' + problem if problem else ''}")
    if not refused:
        return ""
    return (f"the model has {len(called) + 1} subgraphs ({', '.join(refused)}); besides the main one only "
            "CALL_ONCE initialisation subgraphs that assign constants to variables are supported")


def variable_tensors(variables: Sequence[Tensor], ops: Sequence[Op], supported: Iterable[str],
                     state_positions: Callable[[str], frozenset[int]]) -> str:
    """State kept between runs anywhere but in a supported operator's state input (an LSTM's cell
    state), unless only already-refused operators use it (their reason covers it)."""
    supported = set(supported)
    misused = {t for op in ops if op.kind in supported
               for position, t in enumerate(op.inputs) if position not in state_positions(op.kind)}
    misused |= {t for op in ops if op.kind in supported for t in op.outputs}
    shown = [t for t in variables if t.index in misused or not any(
        t.index in op.inputs + op.outputs for op in ops)]
    if not shown:
        return ""
    first = shown[0]
    more = f" and {len(shown) - 1} more" if len(shown) > 1 else ""
    return f"tensor {first.index} '{first.name}'{more} is a variable (state kept between runs); not supported"


def activation_types(ops: Sequence[Op], tensors: Mapping[int, Tensor], boundary: set[int],
                     supported: Iterable[str], state_positions: Callable[[str], frozenset[int]],
                     op_types: Callable[[str], frozenset[str]] = lambda kind: frozenset()) -> list[str]:
    """One phrase per activation type other than int8, at its first use by a supported operator.

    float32 and uint8 are allowed only as the model's quantized boundary (a QUANTIZE or DEQUANTIZE
    at a graph input or output, or at a refused operator: a detector's post-processing reads and
    writes float, and its refusal covers that); the tensors of refused operators are not checked
    again, nor an operator's state (its own Prepare checks the state's type), nor a type `op_types`
    says the operator works in (a custom post-processing op's float outputs), nor a QUANTIZE's or
    DEQUANTIZE's side in a type that another operator of the tensor works in (the DEQUANTIZEs that
    feed a post-processing op: its Prepare judges those). int16 activations are named per operator kind
    that has no int16 kernel yet (a 16x8 model runs where each has one). Only float activations
    get the advice to quantize: an int16 one (a 16x8 model) or an int32 one (integer arithmetic, an
    audio front end's) is already integer, and full int8 quantization would not change it.
    """
    supported = set(supported)
    boundary = boundary | {t for op in ops if op.kind not in supported for t in op.inputs + op.outputs}
    typed = {t for op in ops if op.kind in supported for t in op.inputs + op.outputs
             if t >= 0 and tensors[t].dtype in op_types(op.kind)}
    first: dict[str, tuple[int, Op]] = {}
    count: dict[str, int] = {}
    typed_uses: dict[str, list[tuple[int, Op]]] = {}
    for op in ops:
        if op.kind not in supported:
            continue
        state = {op.inputs[p] for p in state_positions(op.kind) if p < len(op.inputs)}
        for t in op.inputs + op.outputs:
            if t < 0 or tensors[t].is_constant or tensors[t].dtype == "int8" or t in state \
                    or tensors[t].dtype in op_types(op.kind) or op.kind in _CONVERSIONS and t in typed:
                continue
            dtype = tensors[t].dtype
            at_boundary = t in boundary and (op.kind in ("QUANTIZE", "DEQUANTIZE") and dtype == "float32"
                                             or op.kind == "QUANTIZE" and dtype == "uint8")
            if at_boundary:
                continue
            kind = _TYPE_NAMES.get(dtype, dtype)
            first.setdefault(kind, (t, op))
            count[kind] = count.get(kind, 0) + 1
            typed_uses.setdefault(kind, []).append((t, op))
    phrases = []
    for kind, (t, op) in first.items():
        if kind in _BY_OPERATOR:
            phrases.append(_by_operator(kind, tensors, typed_uses[kind]))
            continue
        more = f", and {count[kind] - 1} more uses" if count[kind] > 1 else ""
        phrases.append(f"{kind} activations are not supported{'' if kind in _FLOAT_TYPES else ' yet'} (tensor {t} "
                       f"'{tensors[t].name}', operator {op.kind} at index {op.index}{more})")
    floats = [i for i, kind in enumerate(first) if kind in _FLOAT_TYPES]
    if floats:
        phrases[floats[-1]] += "; convert the model with full int8 quantization"
    return phrases


def _by_operator(kind: str, tensors: Mapping[int, Tensor], uses: list[tuple[int, Op]]) -> str:
    """"int16 activations are not supported yet by CONV_2D (tensor 3 'x', index 2), ...": per operator
    kind in model order, its first such tensor and op, and how many more uses it has."""
    first: dict[str, tuple[int, Op]] = {}
    count: dict[str, int] = {}
    for t, op in uses:
        first.setdefault(op.kind, (t, op))
        count[op.kind] = count.get(op.kind, 0) + 1
    parts = [f"{name} (tensor {t} '{tensors[t].name}', index {op.index}"
             f"{f', and {count[name] - 1} more uses' if count[name] > 1 else ''})" for name, (t, op) in first.items()]
    return f"{kind} activations are not supported yet by {', '.join(parts)}"
