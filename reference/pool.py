"""The simulated pool: activation bytes addressed modulo the pool size, every byte tagged.

Each byte records which tensor (storage) it holds and which byte of that tensor, or that it is
free. A load checks that every byte still holds what the reader expects; a store checks that it
overwrites only free bytes. Either failure is a plan hazard, reported with the step, the op, the
tensor, the segment and the pool address, so a wrong plan fails at the exact byte it goes wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from vmcu_tflite.errors import HazardError

FREE = -1


@dataclass(frozen=True)
class Access:
    """Who touches the pool, for error messages and traces."""

    step: int
    kernel: str
    ops: tuple[int, ...]
    tensor: int
    tensor_name: str
    segment_bytes: int


class SimulatedPool:
    def __init__(self, size: int, trace: Callable[[str], None] | None = None) -> None:
        self.size = size
        self.data = np.zeros(size, dtype=np.int8)
        self.owner = np.full(size, FREE, dtype=np.int64)  # storage tensor index, or FREE
        self.byte = np.full(size, FREE, dtype=np.int64)  # byte index inside that tensor
        self._trace = trace

    def _addresses(self, base: int, offsets: np.ndarray) -> np.ndarray:
        return (base + offsets) % self.size

    def _where(self, who: Access, offset: int, address: int) -> str:
        return (f"step {who.step} ({who.kernel}, TFLite op {', '.join(map(str, who.ops)) or '-'}): tensor "
                f"{who.tensor} '{who.tensor_name}' segment {offset // who.segment_bytes} (byte {offset}) "
                f"at pool address {address}")

    def _held(self, address: int) -> str:
        owner = self.owner[address]
        return "a free byte" if owner == FREE else f"byte {self.byte[address]} of tensor {owner}"

    def store(self, who: Access, base: int, start: int, values: np.ndarray) -> None:
        """Write `values` as bytes [start, start + len) of tensor `who.tensor` at base + start."""
        values = np.asarray(values).reshape(-1)
        self.store_at(who, base, start + np.arange(values.size), values)

    def load(self, who: Access, base: int, start: int, length: int) -> np.ndarray:
        """Read bytes [start, start + length) of tensor `who.tensor`, checking every tag."""
        return self.load_at(who, base, start + np.arange(length))

    def free(self, who: Access, base: int, start: int, length: int) -> None:
        """Release bytes [start, start + length) of `who.tensor`: no later step reads them."""
        self.free_at(who, base, start + np.arange(length))

    def store_at(self, who: Access, base: int, offsets: np.ndarray, values: np.ndarray) -> None:
        """Write bytes `offsets` of tensor `who.tensor`; each must land on a free byte."""
        values = np.ascontiguousarray(values, dtype=np.int8).reshape(-1)
        addr = self._addresses(base, offsets)
        busy = np.flatnonzero(self.owner[addr] != FREE)
        if busy.size:
            i = busy[0]
            raise HazardError(f"plan hazard: {self._where(who, int(offsets[i]), int(addr[i]))} is written over "
                              f"{self._held(int(addr[i]))}, which is still to be read")
        self.data[addr] = values
        self.owner[addr] = who.tensor
        self.byte[addr] = offsets
        self._log("store", who, base, offsets)

    def load_at(self, who: Access, base: int, offsets: np.ndarray) -> np.ndarray:
        """Read bytes `offsets` of tensor `who.tensor`, checking that each still holds them."""
        addr = self._addresses(base, offsets)
        wrong = np.flatnonzero((self.owner[addr] != who.tensor) | (self.byte[addr] != offsets))
        if wrong.size:
            i = wrong[0]
            raise HazardError(f"plan hazard: {self._where(who, int(offsets[i]), int(addr[i]))} was expected "
                              f"but the pool holds {self._held(int(addr[i]))}")
        self._log("load", who, base, offsets)
        return self.data[addr].copy()

    def free_at(self, who: Access, base: int, offsets: np.ndarray) -> None:
        addr = self._addresses(base, offsets)
        addr = addr[self.owner[addr] == who.tensor]
        self.owner[addr] = FREE
        self.byte[addr] = FREE
        self._log("free", who, base, offsets)

    # --- bulk operations of a kernel description's run (`kernel_run.py`), checked there ---------

    def describe(self, who: Access, offset: int, address: int) -> str:
        return self._where(who, offset, address)

    def holder(self, address: int) -> str:
        return self._held(address)

    def addresses_of(self, tensor: int, base: int, size: int) -> np.ndarray:
        """The pool addresses that still hold bytes of `tensor` (laid out from `base`)."""
        addr = (base + np.arange(size)) % self.size
        return addr[self.owner[addr] == tensor]

    def release(self, addresses: np.ndarray) -> None:
        self.owner[addresses] = FREE
        self.byte[addresses] = FREE

    def place(self, who: Access, base: int, offsets: np.ndarray, values: np.ndarray) -> None:
        """Bytes `offsets` of `who.tensor` (laid out from `base`) now hold `values`; the caller
        checked that their addresses were free."""
        addresses = self._addresses(base, offsets)
        self.data[addresses] = np.asarray(values, dtype=np.int8)
        self.owner[addresses] = who.tensor
        self.byte[addresses] = offsets
        self._log("store", who, base, offsets)

    def note(self, line: str) -> None:
        """A line for the trace (a summary of events checked in bulk)."""
        if self._trace is not None:
            self._trace(line)

    def _log(self, event: str, who: Access, base: int, offsets: np.ndarray) -> None:
        if self._trace is not None and offsets.size:
            lo, hi = int(offsets.min()), int(offsets.max())
            first = (base + lo) % self.size
            span = "" if hi - lo + 1 == offsets.size else f" ({offsets.size} bytes, strided)"
            self._trace(f"step {who.step:3d} {who.kernel:<24s} {event:<5s} tensor {who.tensor:4d} "
                        f"bytes [{lo}, {hi + 1}){span} at pool {first}..{(base + hi) % self.size}")
