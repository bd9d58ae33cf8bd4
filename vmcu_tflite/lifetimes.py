"""The steps and the buffers between them as a networkx graph, and when each buffer is live.

`Dataflow` is the step-level IR that fusion and the planners query: one node per step
(`("step", i)`) and one per buffer (`("buffer", t)`, t the storage tensor: a buffer is the bytes
of one tensor and of every alias of it), with an edge buffer -> step for each read and step ->
buffer for each write. Who writes a buffer, who reads it, whether one step alone reads it and when
it is live are all questions about that graph.

A buffer is live from the step that writes it (step 0 for a graph input) to the last step that
reads it (the last step for a graph output), both included: within a step, inputs and outputs
coexist. A streamed input that a chain pulls into its own ring is a buffer of no bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import networkx as nx
import numpy as np

from .graph import Graph
from .ops import SPECS
from .steps import Step


@dataclass(frozen=True)
class Buffer:
    tensor: int  # the storage tensor (aliases resolved)
    size: int  # bytes
    first: int  # first step it is live in
    last: int  # last step it is live in
    # bytes of one element (int16: 2, uint64: 8): kernels read whole elements, so the planners put
    # its base at a multiple of it and never across the end of the pool (1: int8, any place)
    align: int = 1
    # a buffer of wider elements that may still cross the end of the pool: every step that reads or
    # writes it is a 16x8 heavy layer, whose described kernel copies what wraps (`kernels.lower`),
    # or a kernel whose spec says it reaches its elements through wrapping accessors (`OpSpec.wraps`)
    wraps: bool = False


class Dataflow:
    """Steps and buffers as a bipartite networkx DiGraph (see the module docstring)."""

    def __init__(self, graph: Graph, steps: Sequence[Step]) -> None:
        self.graph, self.steps = graph, steps
        self.dag = nx.DiGraph()
        for port in graph.inputs:
            self.dag.add_node(("buffer", graph.storage_of(port.tensor)), graph_input=True)
        for step in steps:
            self.dag.add_node(("step", step.index))
            for t in map(graph.storage_of, step.inputs):
                self.dag.add_edge(("buffer", t), ("step", step.index))
            for t in map(graph.storage_of, step.outputs):
                self.dag.add_edge(("step", step.index), ("buffer", t))
        for port in graph.outputs:
            self.dag.add_node(("buffer", graph.storage_of(port.tensor)), graph_output=True)

    def readers(self, tensor: int) -> list[int]:
        """The steps that read `tensor`'s bytes, in order."""
        node = ("buffer", self.graph.storage_of(tensor))
        return sorted(i for _, i in self.dag.successors(node)) if node in self.dag else []

    def writers(self, tensor: int) -> list[int]:
        """The steps that write `tensor`'s bytes, in order (one, unless steps write parts of it)."""
        node = ("buffer", self.graph.storage_of(tensor))
        return sorted(i for _, i in self.dag.predecessors(node)) if node in self.dag else []

    def is_graph_output(self, tensor: int) -> bool:
        return self.dag.nodes.get(("buffer", self.graph.storage_of(tensor)), {}).get("graph_output", False)

    def only_reader(self, tensor: int) -> int | None:
        """The one step that reads `tensor`, when exactly one does and the application does not."""
        readers = self.readers(tensor)
        return readers[0] if len(readers) == 1 and not self.is_graph_output(tensor) else None

    def pulled(self, tensor: int) -> bool:
        """A streamed model input a chain pulls row by row into its own ring: it has no bytes of
        its own in the pool (`vmcu_tflite/streamed_io.py`)."""
        return any(getattr(self.steps[i].params, "pulls_input", None) is not None for i in self.readers(tensor))

    def pushed(self, tensor: int) -> bool:
        """A streamed model output a chain pushes row by row from its own ring: it has no bytes of
        its own in the pool either."""
        return any(getattr(self.steps[i].params, "pushes_output", None) is not None for i in self.writers(tensor))

    def wraps(self, tensor: int) -> bool:
        """Whether only 16x8 heavy layers (their descriptions take int16 data across the end of the
        pool) and kernels whose spec says they wrap (`OpSpec.wraps`) read and write `tensor`; the
        application's inputs and outputs stay in one piece anyway."""
        steps = self.readers(tensor) + self.writers(tensor)
        return bool(steps) and all(getattr(self.steps[i].params, "element", 1) == 2 or SPECS[self.steps[i].kernel].wraps
                                   for i in steps)

    def lifetimes(self) -> dict[int, Buffer]:
        end = max(len(self.steps) - 1, 0)
        found = {}
        for kind, t in self.dag.nodes:
            if kind != "buffer":
                continue
            data, writers = self.dag.nodes[kind, t], self.writers(t)
            first = 0 if data.get("graph_input") else min(writers, default=end)
            last = max([first, *writers, *self.readers(t)] + ([end] if data.get("graph_output") else []))
            tensor = self.graph.tensors[t]
            found[t] = Buffer(t, 0 if self.pulled(t) or self.pushed(t) else tensor.num_bytes, first, last,
                              element_bytes(tensor.dtype), self.wraps(t))
        return dict(sorted(found.items()))


def element_bytes(dtype: str) -> int:
    """Bytes of one element of a pool tensor of type `dtype`."""
    return np.dtype(dtype).itemsize


def buffer_lifetimes(graph: Graph, steps: Sequence[Step]) -> dict[int, Buffer]:
    return Dataflow(graph, steps).lifetimes()
