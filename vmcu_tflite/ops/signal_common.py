"""What the signal library's custom operators (TFLite Micro's `signal/micro/kernels/`) share: their
options are a flexbuffer map whose keys each kernel's Init reads by position in key order, so a key
the model lacks is a refusal here, never a zero."""
from __future__ import annotations

from ..graph import Graph, Op, Tensor
from .common import output, require, tensor

INT16_MIN, INT16_MAX = -32768, 32767


def int_option(op: Op, key: str) -> int:
    """An integer option the op's Init reads (ElementAsInt32): present and an int32."""
    require(key in op.options, op, f"its custom options have no '{key}' (TFLite Micro's Init reads it)")
    value = op.options[key]
    require(isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31, op,
            f"option '{key}' is {value!r}, not an int32")
    return int(value)


def typed(graph: Graph, op: Op, position: int, dtype: str, what: str, output_: bool = False) -> Tensor:
    """The op's input (or output) at `position`, required to be of `dtype` (TF_LITE_ENSURE_TYPES_EQ)."""
    t = output(graph, op, position) if output_ else tensor(graph, op, position)
    require(t is not None, op, f"its {what} is missing")
    require(t.dtype == dtype, op, f"its {what} is {t.dtype.upper()}; TFLite Micro requires {dtype.upper()}")
    return t
