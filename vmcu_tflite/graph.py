"""The model as the converter sees it: typed, immutable tensors and ops in a networkx graph.

The reader builds a `Graph` straight from the flatbuffer; the passes return new `Graph`s. Nothing
here knows about TFLite's flatbuffer classes, so every later stage (planner, interpreter, codegen)
works on plain Python values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

import networkx as nx
import numpy as np


@dataclass(frozen=True)
class Quantization:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per channel on `axis`."""

    scale: tuple[float, ...]
    zero_point: tuple[int, ...]
    axis: int = 0

    @property
    def per_channel(self) -> bool:
        return len(self.scale) > 1


@dataclass(frozen=True, eq=False)
class Tensor:
    """A tensor of the model. `data` is set (read-only) for constants, None for activations.

    A variable (`is_variable`: an LSTM's or SVDF's state) keeps its bytes from one run to the next,
    so it lives in the application's state region (`vmcu_tflite.state`), never in the pool.
    `folded_from` names the model's operators that computed a constant when converting
    (`vmcu_tflite.folding`); empty for the model's own constants and for activations.
    """

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str
    quant: Quantization | None = None
    data: np.ndarray | None = field(default=None, repr=False)
    is_variable: bool = False
    folded_from: tuple[int, ...] = ()

    @property
    def is_constant(self) -> bool:
        return self.data is not None

    @property
    def holds_elements(self) -> bool:
        """Whether its type is one of plain elements (numpy's); STRING, RESOURCE, VARIANT, INT4 are not:
        nothing here sizes or reads them, nor does TFLite Micro allocate them."""
        try:
            np.dtype(self.dtype)
        except TypeError:
            return False
        return True

    @property
    def num_elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def num_bytes(self) -> int:
        return self.num_elements * np.dtype(self.dtype).itemsize

    @property
    def io_quantization(self) -> tuple[float, int]:
        """(scale, zero point) as TFLite reports a graph input's or output's: (0.0, 0) when it has no
        quantization (an audio front end's int16 samples)."""
        return (self.scale, self.zero_point) if self.quant is not None else (0.0, 0)

    @property
    def scale(self) -> float:
        """The per-tensor scale; per-channel tensors must use `quant.scale`."""
        assert self.quant is not None and not self.quant.per_channel, self.name
        return self.quant.scale[0]

    @property
    def zero_point(self) -> int:
        assert self.quant is not None and not self.quant.per_channel, self.name
        return self.quant.zero_point[0]


class Options(Mapping[str, Any]):
    """An operator's builtin options.

    By attribute (`op.options.stride_h`): every field of the operator's TFLite options type, the
    table's value or, when the model has no table, TFLite Micro's zero (its params are
    zero-initialized). A name that is not a field raises AttributeError, so a misspelled option
    cannot fall back to a made-up default. As a mapping: only the fields the model's table holds
    (nothing without a table), for the rules that ask what the model says, plus what the passes
    add (a folded PAD's padding, a SPLIT part's first index).
    """

    def __init__(self, values: Mapping[str, Any] | None = None, zeros: Mapping[str, Any] | None = None) -> None:
        self._values = dict(values or {})
        self._zeros = dict(zeros or {})

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._values:
            return self._values[name]
        if name in self._zeros:
            return self._zeros[name]
        raise AttributeError(f"no option '{name}' (fields: {', '.join(sorted(self._zeros)) or 'none'})")

    def with_values(self, **values: Any) -> "Options":
        """The same options plus `values` (what a pass adds)."""
        return Options({**self._values, **values}, {**self._zeros, **{k: None for k in values}})

    def __repr__(self) -> str:
        return f"Options({self._values!r})"


@dataclass(frozen=True, eq=False)
class Op:
    """One TFLite operator. `inputs` keep TFLite's positions; -1 marks an omitted optional input.

    `folded` lists the indices of TFLite operators a pass merged into this one (a PAD folded into
    the convolution that consumes it), so reports can name every original operator.
    """

    index: int
    kind: str
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    options: Options = field(default_factory=Options)
    folded: tuple[int, ...] = ()


@dataclass(frozen=True)
class IOPort:
    """A graph input or output as the application sees it.

    `tensor` is the tensor inside the pool. `dtype` is what the application passes or receives: the
    tensor's own type (int8, or an integer type such as an audio front end's int16 samples, its
    elements little-endian at an address aligned to their size); for an int8 tensor, "float32" when the
    model had a QUANTIZE/DEQUANTIZE at its boundary (values converted with `tensor`'s scale and zero
    point outside the pool) and "uint8" when it had a QUANTIZE that only moves the zero point by 128
    (the top bit flipped outside the pool).
    """

    tensor: int
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Graph:
    """Ops in execution order, their tensors, and the model's I/O.

    `aliases` maps a tensor to the tensor whose bytes it shares (RESHAPE, SQUEEZE and empty PADs
    become aliases: same bytes, another shape). `dag` is the networkx graph the passes query: a
    node per op (`("op", position in ops)`: the parts of a SPLIT share their TFLite index) and per
    tensor (`("tensor", t)`), an edge tensor -> op for each read and op -> tensor for each write.
    """

    name: str
    tensors: Mapping[int, Tensor]
    ops: tuple[Op, ...]
    inputs: tuple[IOPort, ...]
    outputs: tuple[IOPort, ...]
    aliases: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))

    @cached_property
    def dag(self) -> nx.DiGraph:
        g = nx.DiGraph()
        for position, op in enumerate(self.ops):
            g.add_node(("op", position), kind=op.kind)
            g.add_edges_from((("tensor", t), ("op", position)) for t in op.inputs if t >= 0)
            g.add_edges_from((("op", position), ("tensor", t)) for t in op.outputs if t >= 0)
        return g

    def storage_of(self, tensor: int) -> int:
        """The tensor that owns the bytes of `tensor` (itself unless it is an alias)."""
        while tensor in self.aliases:
            tensor = self.aliases[tensor]
        return tensor

    def activations(self, op: Op) -> tuple[int, ...]:
        """The op's inputs in the pool (neither constants nor state), in TFLite's order."""
        return tuple(t for t in op.inputs
                     if t >= 0 and not self.tensors[t].is_constant and not self.tensors[t].is_variable)

    def variables(self) -> tuple[int, ...]:
        """The state tensors the ops read, in index order."""
        return tuple(sorted({t for op in self.ops for t in op.inputs if t >= 0 and self.tensors[t].is_variable}))

    def consumers(self, tensor: int) -> list[Op]:
        """The ops that read `tensor`, in execution order."""
        node = ("tensor", tensor)
        return [self.ops[i] for _, i in sorted(self.dag.successors(node))] if node in self.dag else []

    def producer(self, tensor: int) -> Op | None:
        node = ("tensor", tensor)
        return next((self.ops[i] for _, i in self.dag.predecessors(node)), None) if node in self.dag else None
