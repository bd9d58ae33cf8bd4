"""What the signal library's operators (TFLite Micro's `signal/micro/kernels`) share: their options
and their 1-D tensors.

A signal kernel's Init reads its flexbuffer map by position, not by key (`ElementAsInt32(i)`): the
i-th value of the map, whose keys a flexbuffer keeps sorted. So the model's map must start with the
op's keys in sorted order, each holding a value of the kind Init converts; a key sorting before one
of them would shift every value after it, and a missing one would be read past the map's end. Keys
sorting after the op's are never read and are ignored, as TFLite Micro ignores them.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..graph import Graph, Op, Tensor
from .common import output, require, tensor

INT16_MIN, INT16_MAX = -32768, 32767
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
# added by vmcu_tflite.passes, not in the model's map
PASS_KEYS = frozenset({"noise_output", "noise_copy", "fft_auto_scale_part", "fft_auto_scale_size",
                       "fft_auto_scale_ranks"})


def signal_options(op: Op, kinds: Mapping[str, str]) -> dict[str, int | bool]:
    """The op's options as its Init reads them: `kinds` maps each key to "int" (ElementAsInt32) or
    "bool" (ElementAsBool)."""
    keys = sorted(kinds)
    present = sorted(k for k in op.options if k not in PASS_KEYS)
    require(present[:len(keys)] == keys, op, f"its options must hold the keys {', '.join(keys)} (its kernel reads "
                                             f"them by position); the model's map has {', '.join(present) or 'none'}")
    values: dict[str, int | bool] = {}
    for key in keys:
        value = op.options[key]
        if kinds[key] == "bool":
            require(isinstance(value, bool), op, f"option {key} must be a boolean, not {value!r}")
        else:
            require(isinstance(value, int) and not isinstance(value, bool) and INT32_MIN <= value <= INT32_MAX, op,
                    f"option {key} must be a 32-bit integer, not {value!r}")
        values[key] = value
    return values


def io_tensors(graph: Graph, op: Op, inputs: int, outputs: int) -> tuple[list[Tensor], list[Tensor]]:
    """The op's inputs and outputs, all present, in the counts its Prepare requires."""
    require(len(op.inputs) == inputs and len(op.outputs) == outputs, op,
            f"expects {inputs} inputs and {outputs} output{'s' if outputs > 1 else ''}")
    require(all(t >= 0 for t in op.inputs + op.outputs), op, "a tensor is missing")
    return [graph.tensors[t] for t in op.inputs], [graph.tensors[t] for t in op.outputs]


def check_tensor(op: Op, t: Tensor, what: str, dtype: str, rank: int = 1) -> None:
    """A tensor of exactly the type and rank Prepare checks (TF_LITE_ENSURE_TYPES_EQ, NumDimensions)."""
    require(t.dtype == dtype, op, f"the {what} must be {dtype}, not {t.dtype}")
    require(len(t.shape) == rank, op, f"the {what} must be {rank}-D, not of shape {t.shape}")


def constant_table(op: Op, t: Tensor, what: str) -> np.ndarray:
    """A table the kernel reads from a constant input (filter bank weights, the PCAN gain lookup)."""
    require(t.is_constant, op, f"the {what} must be a constant tensor")
    return np.asarray(t.data).reshape(-1)


def int_option(op: Op, key: str, keys: tuple[str, ...]) -> int:
    """The integer option `key` of an op whose Init reads the integers `keys` by position (signal_options)."""
    return int(signal_options(op, {k: "int" for k in keys})[key])


def typed(graph: Graph, op: Op, position: int, dtype: str, what: str, output_: bool = False) -> Tensor:
    """The op's input (or output) at `position`, required to be of `dtype` (TF_LITE_ENSURE_TYPES_EQ)."""
    t = output(graph, op, position) if output_ else tensor(graph, op, position)
    require(t is not None, op, f"its {what} is missing")
    require(t.dtype == dtype, op, f"its {what} is {t.dtype.upper()}; TFLite Micro requires {dtype.upper()}")
    return t
