"""The application's side of streamed inputs and outputs, as the interpreter plays it.

A `RowSource` serves the rows of the streamed inputs the way a camera or a DMA buffer would:
each row once, in increasing order. Whoever pulls (the runtime before a step, or a chain's
kernel into its ring) must follow that protocol; the source refuses anything else, so a plan
that pulls a row twice, out of order or not at all fails here before any C exists. A `RowSink`
takes the streamed outputs' rows the same way.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from vmcu_tflite.errors import HazardError
from vmcu_tflite.streamed_io import StreamedPort

from .boundary import as_bytes


class _Rows:
    """One port's rows and how far the protocol has got."""

    def __init__(self, port: StreamedPort, what: str) -> None:
        self.port, self.what, self.next = port, what, 0

    def take(self, row: int, length: int) -> None:
        port = self.port
        if row != self.next:
            why = "again" if row < self.next else f"before row {self.next}"
            raise HazardError(f"plan hazard: row {row} of streamed {self.what} {port.index} is asked for {why} "
                              "(rows go once, in order)")
        if length != port.row_bytes:
            raise HazardError(f"plan hazard: row {row} of streamed {self.what} {port.index} is asked for with "
                              f"{length} bytes, a row has {port.row_bytes}")
        self.next += 1

    def finish(self) -> None:
        if self.next != self.port.rows:
            raise HazardError(f"plan hazard: the run took {self.next} of the {self.port.rows} rows of streamed "
                              f"{self.what} {self.port.index}")


class RowSource:
    """Serves the rows of the streamed inputs from the bytes the application would hold (its values,
    little-endian)."""

    def __init__(self, ports: tuple[StreamedPort, ...], data: dict[int, np.ndarray],
                 trace: Callable[[str], None] | None = None) -> None:
        self.rows = {p.index: _Rows(p, "input") for p in ports}
        self.data = {p.index: as_bytes(np.asarray(data[p.index])).reshape(p.rows, p.row_bytes) for p in ports}
        self.trace = trace

    def pull(self, index: int, row: int, length: int, address: int | None = None) -> np.ndarray:
        if index not in self.rows:
            raise HazardError(f"plan hazard: a row of input {index} is pulled, but that input does not stream")
        self.rows[index].take(row, length)
        if self.trace:
            self.trace(f"pull input {index} row {row}: {length} bytes" +
                       ("" if address is None else f" to pool [{address}, {address + length})"))
        return self.data[index][row]

    def finish(self) -> None:
        for rows in self.rows.values():
            rows.finish()


class RowSink:
    """Takes the rows of the streamed outputs and puts each output back together."""

    def __init__(self, ports: tuple[StreamedPort, ...], trace: Callable[[str], None] | None = None) -> None:
        self.rows = {p.index: _Rows(p, "output") for p in ports}
        self.data = {p.index: np.zeros((p.rows, p.row_bytes), np.int8) for p in ports}
        self.trace = trace

    def push(self, index: int, row: int, values: np.ndarray) -> None:
        self.rows[index].take(row, len(values))
        if self.trace:
            self.trace(f"push output {index} row {row}: {len(values)} bytes")
        self.data[index][row] = values

    def finish(self) -> None:
        for rows in self.rows.values():
            rows.finish()
