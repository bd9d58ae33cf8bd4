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


def unsupported_operators(ops: Sequence[Op], supported: Iterable[str]) -> str:
    """Every operator kind the model needs that we lack, with the indices of its ops ("" when none)."""
    supported = set(supported)
    where: dict[str, list[int]] = {}
    for op in ops:
        if op.kind not in supported:
            where.setdefault(op.kind, []).append(op.index)
    if not where:
        return ""
    parts = [f"{kind} (op{'s' * (len(at) > 1)} {', '.join(map(str, at))}"
             f"{': ' + WHY_UNSUPPORTED[kind] if kind in WHY_UNSUPPORTED else ''})" for kind, at in where.items()]
    return f"unsupported operator{'s' * (len(parts) > 1)} {', '.join(parts)}"


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
                     supported: Iterable[str], state_positions: Callable[[str], frozenset[int]]) -> list[str]:
    """One phrase per activation type other than int8, at its first use by a supported operator.

    float32 and uint8 are allowed only as the model's quantized boundary (a QUANTIZE or DEQUANTIZE
    at a graph input or output); the tensors of refused operators are not checked again, nor an
    operator's state (its own Prepare checks the state's type).
    """
    supported = set(supported)
    first: dict[str, tuple[int, Op]] = {}
    count: dict[str, int] = {}
    for op in ops:
        if op.kind not in supported:
            continue
        state = {op.inputs[p] for p in state_positions(op.kind) if p < len(op.inputs)}
        for t in op.inputs + op.outputs:
            if t < 0 or tensors[t].is_constant or tensors[t].dtype == "int8" or t in state:
                continue
            dtype = tensors[t].dtype
            at_boundary = t in boundary and (op.kind in ("QUANTIZE", "DEQUANTIZE") and dtype == "float32"
                                             or op.kind == "QUANTIZE" and dtype == "uint8")
            if at_boundary:
                continue
            kind = _TYPE_NAMES.get(dtype, dtype)
            first.setdefault(kind, (t, op))
            count[kind] = count.get(kind, 0) + 1
    phrases = []
    for kind, (t, op) in first.items():
        more = f", and {count[kind] - 1} more uses" if count[kind] > 1 else ""
        phrases.append(f"{kind} activations are not supported (tensor {t} '{tensors[t].name}', operator "
                       f"{op.kind} at index {op.index}{more})")
    if phrases:
        phrases[-1] += "; convert the model with full int8 quantization"
    return phrases
