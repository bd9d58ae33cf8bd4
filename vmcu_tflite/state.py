"""The state region: where variable tensors (an LSTM's cell and output state, an SVDF's memory, a
resource variable) keep their bytes from one run to the next, and the state an op keeps of its own
(a spectral subtraction's noise estimate, which TFLite Micro keeps in a persistent buffer and zeroes
on reset).

The pool is reused by every run, so state cannot live there: the application owns a third buffer,
`<PREFIX>_STATE_BYTES` long, which the runtime fills with TFLite's initial values (TFLite Micro's
ResetVariableTensors: an int8 variable holds its zero point, every other type 0; a resource
variable the zero point of the value that allocated it, `vmcu_tflite.resources`) on the first run
and whenever `vmcu_reset_state()` is called. The region starts with a 4-byte tag, the model's
`state_tag`, which says the bytes after it hold this model's state: a zeroed buffer (static
storage) or one last used by another model is zeroed whole and reset before it is read. Each
variable then gets 4-byte-aligned bytes of its own, in tensor order; after them each CALL_ONCE
has a flag word (0: its initialisation has not run yet). The reset leaves the flags alone, as
TFLite Micro's Reset leaves CALL_ONCE's: only a region that did not hold this model's state starts
with them at 0.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .graph import Graph

TAG_BYTES = 4
FLAG_BYTES = 4


@dataclass(frozen=True)
class StateLayout:
    """offsets: variable tensor -> first byte in the region; initial: (offset, bytes, fill byte)
    per variable; tag: the region's first word once it holds this model's state (0 never)."""

    offsets: Mapping[int, int]
    bytes: int
    initial: tuple[tuple[int, int, int], ...]
    tag: int
    flags: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))  # CALL_ONCE op -> its flag's offset


def _align(n: int) -> int:
    return (n + 3) & ~3


def _fill(graph: Graph, tensor: int) -> int:
    t = graph.tensors[tensor]
    if t.dtype == "int8" and t.quant is not None and not t.quant.per_channel:
        return t.zero_point & 0xFF
    return 0


def state_tensors(graph: Graph) -> tuple[int, ...]:
    """The tensors whose bytes the region keeps: the variables, and the state an op keeps of its own
    (a spectral subtraction's noise estimate, keyed by its estimate output), in index order."""
    from .ops.signal_filter_bank_spectral_subtraction import KIND as SPECTRAL, noise_state

    owned = {noise_state(op) for op in graph.ops if op.kind == SPECTRAL}
    return tuple(sorted(set(graph.variables()) | owned))


def state_layout(graph: Graph) -> StateLayout:
    """The region of `graph`'s variables and op states; 0 bytes when it has none."""
    variables = state_tensors(graph)
    call_once = [op.index for op in graph.ops if op.kind == "CALL_ONCE"]
    if not variables and not call_once:
        return StateLayout(MappingProxyType({}), 0, (), 0)
    offsets, initial, at = {}, [], TAG_BYTES
    for t in variables:
        size = graph.tensors[t].num_bytes
        offsets[t] = at
        initial.append((at, size, _fill(graph, t)))
        at += _align(size)
    flags = {}
    for index in call_once:
        flags[index] = at
        at += FLAG_BYTES
    digest = hashlib.sha256(repr((graph.name, [(t, graph.tensors[t].shape, graph.tensors[t].dtype) for t in variables],
                                  initial, *([list(flags.values())] if flags else []))).encode()).digest()
    tag = int.from_bytes(digest[:4], "little") or 1
    return StateLayout(MappingProxyType(offsets), at, tuple(initial), tag, MappingProxyType(flags))


class StateMemory:
    """The region as the reference interpreter holds it between runs: one typed array per variable,
    views of a single byte buffer laid out as the C runtime's."""

    def __init__(self, graph: Graph) -> None:
        self.layout = state_layout(graph)
        self.raw = np.zeros(self.layout.bytes, dtype=np.int8)
        self.tensors: dict[int, np.ndarray] = {}
        for t, offset in self.layout.offsets.items():
            tensor = graph.tensors[t]
            self.tensors[t] = self.raw[offset:offset + tensor.num_bytes].view(tensor.dtype).reshape(tensor.shape)
        for index, offset in self.layout.flags.items():
            self.tensors[flag_key(index)] = self.raw[offset:offset + FLAG_BYTES].view(np.int32)
        self.reset()

    def reset(self) -> None:
        """TFLite's initial values (what `vmcu_reset_state()` writes); the CALL_ONCE flags stay
        as they are in a region that holds this model's state already."""
        if not self.layout.bytes:
            return
        tag = np.frombuffer(self.layout.tag.to_bytes(4, "little"), dtype=np.int8)
        if not np.array_equal(self.raw[:TAG_BYTES], tag):
            self.raw[:] = 0
        self.raw[:TAG_BYTES] = tag
        for offset, size, fill in self.layout.initial:
            self.raw[offset:offset + size] = np.int8(np.uint8(fill).view(np.int8))


def flag_key(call_once: int) -> tuple[str, int]:
    """The key of CALL_ONCE op `call_once`'s flag word among `StateMemory.tensors`."""
    return ("call_once", call_once)
