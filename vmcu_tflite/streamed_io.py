"""Inputs and outputs that stream row by row between the application and the run.

A streamed input never exists whole in the pool: the run pulls its rows (its outermost non-batch
dimension: an image's rows, a spectrogram's frames) from the application through a callback,
each row once and in increasing order, so a camera line buffer or a DMA half-buffer can serve
them. Where the step that reads the input is a chain that keeps only the rows its first window
needs (`LayerChainParams.pulls_input`), the rows go straight into that ring and the input takes
no pool bytes; elsewhere they are pulled into the input's place in the pool just before that
step, which then works as if the application had written the input (no saving, same protocol). A
sequence the model only UNPACKs into its rows (an unrolled recurrent model's frames) is pulled part
by part instead, each row into its part by a step of its own just before the part is first read
(`pulled_rows.py`): it never exists whole either.

A streamed output is handed to the application row by row: where a chain makes it
(`LayerChainParams.pushes_output`), each row as soon as the chain has made it, from a ring of
one row, so the output takes no pool bytes either; elsewhere as soon as the step that makes it
returns, its bytes free from then on.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence


@dataclass(frozen=True)
class StreamedPort:
    """One streamed input or output: the model's I/O `index`, its `rows` of `row_bytes` bytes,
    and `step`, the step that reads it (an input) or makes it (an output). `in_ring`: the step's
    kernel pulls the input's rows into its own ring, or pushes the output's from one (the port
    has no pool bytes). `parts`: the input's rows are its UNPACK parts, each pulled by a step of
    its own just before the first step that reads it (`pulled_rows.py`; `step` pulls row 0)."""

    index: int
    rows: int
    row_bytes: int
    step: int
    in_ring: bool = False
    parts: bool = False


@dataclass(frozen=True)
class StreamedIO:
    inputs: tuple[StreamedPort, ...] = ()
    outputs: tuple[StreamedPort, ...] = ()
    pool_bytes_whole: int = 0  # the pool of the same model with every port in the pool (what streaming saved)

    def __bool__(self) -> bool:
        return bool(self.inputs or self.outputs)

    def to_json(self) -> dict[str, Any]:
        port = lambda p: {"index": p.index, "rows": p.rows, "row_bytes": p.row_bytes, "step": p.step,  # noqa: E731
                          "in_ring": p.in_ring, **({"parts": True} if p.parts else {})}
        return {"inputs": [port(p) for p in self.inputs], "outputs": [port(p) for p in self.outputs],
                "pool_bytes_whole": self.pool_bytes_whole}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "StreamedIO":
        if not data:
            return cls()
        make = lambda p: StreamedPort(int(p["index"]), int(p["rows"]), int(p["row_bytes"]), int(p["step"]),  # noqa: E731
                                      bool(p.get("in_ring", False)), bool(p.get("parts", False)))
        return cls(tuple(make(p) for p in data.get("inputs", ())), tuple(make(p) for p in data.get("outputs", ())),
                   int(data.get("pool_bytes_whole", 0)))


def row_layout(shape: Sequence[int], itemsize: int = 1) -> tuple[int, int]:
    """(rows, bytes per row) of a tensor of `shape`: rows along the outermost dimension that is
    not a batch of one (NHWC: the image rows), the whole tensor as one row for a vector."""
    dims = list(shape)
    if len(dims) >= 2 and dims[0] == 1:
        dims = dims[1:]
    if len(dims) < 2:  # a vector: one row (its elements are not rows of one byte)
        dims = [1, *dims]
    rows = dims[0]
    row_bytes = itemsize
    for d in dims[1:]:
        row_bytes *= d
    return rows, row_bytes


def tensor_rows(tensor) -> tuple[int, int]:
    """`row_layout` of a graph tensor (`graph.Tensor`), its elements' own size."""
    return row_layout(tensor.shape, tensor.num_bytes // max(tensor.num_elements, 1))
