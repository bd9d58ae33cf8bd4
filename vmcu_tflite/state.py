"""The state region: where variable tensors (an LSTM's cell and output state, an SVDF's memory)
keep their bytes from one run to the next, and the state an op keeps of its own (a spectral
subtraction's noise estimate, which TFLite Micro keeps in a persistent buffer and zeroes on reset).

The pool is reused by every run, so state cannot live there: the application owns a third buffer,
`<PREFIX>_STATE_BYTES` long, which the runtime fills with TFLite's initial values (TFLite Micro's
ResetVariableTensors: an int8 variable holds its zero point, every other type 0) on the first run
and whenever `vmcu_reset_state()` is called. The region starts with a 4-byte tag, the model's
`state_tag`, which says the bytes after it hold this model's state: a zeroed buffer (static
storage) or one last used by another model is reset before it is read. Each variable then gets
4-byte-aligned bytes of its own, in tensor order.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .graph import Graph

TAG_BYTES = 4


@dataclass(frozen=True)
class StateLayout:
    """offsets: variable tensor -> first byte in the region; initial: (offset, bytes, fill byte)
    per variable; tag: the region's first word once it holds this model's state (0 never)."""

    offsets: Mapping[int, int]
    bytes: int
    initial: tuple[tuple[int, int, int], ...]
    tag: int


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
    if not variables:
        return StateLayout(MappingProxyType({}), 0, (), 0)
    offsets, initial, at = {}, [], TAG_BYTES
    for t in variables:
        size = graph.tensors[t].num_bytes
        offsets[t] = at
        initial.append((at, size, _fill(graph, t)))
        at += _align(size)
    digest = hashlib.sha256(repr((graph.name, [(t, graph.tensors[t].shape, graph.tensors[t].dtype) for t in variables],
                                  initial)).encode()).digest()
    tag = int.from_bytes(digest[:4], "little") or 1
    return StateLayout(MappingProxyType(offsets), at, tuple(initial), tag)


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
        self.reset()

    def reset(self) -> None:
        """TFLite's initial values (what `vmcu_reset_state()` writes)."""
        self.raw[:] = 0
        if not self.layout.bytes:
            return
        self.raw[:TAG_BYTES] = np.frombuffer(self.layout.tag.to_bytes(4, "little"), dtype=np.int8)
        for offset, size, fill in self.layout.initial:
            self.raw[offset:offset + size] = np.int8(np.uint8(fill).view(np.int8))
