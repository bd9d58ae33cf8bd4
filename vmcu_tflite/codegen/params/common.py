"""Initializers shared by the params emitters."""
from __future__ import annotations

from typing import Sequence

from ...kernels.requant import GENERAL, RequantForm, tables
from ..cwriter import CWriter

MAX_DIMS = 6  # VMCU_MAX_DIMS in vmcu_types.h


def struct(**fields) -> str:
    """A struct initializer by field name (C99 designated initializers), so that a field the
    runtime reorders or renames breaks the build instead of silently taking another's value."""
    return "{" + ", ".join(f".{name} = {value}" for name, value in fields.items()) + "}"


def dims(shape) -> str:
    """A vmcu_dims initializer: NHWC, leading dimensions filled with 1."""
    n, h, w, c = (1,) * (4 - len(shape)) + tuple(int(d) for d in shape)
    return struct(n=n, h=h, w=w, c=c)


def requant(writer: CWriter, name: str, r, form: RequantForm = GENERAL) -> str:
    """A vmcu_requant initializer from a `Requantization`, its tables in the encoding the layer's
    requantization form reads (`requant.tables`)."""
    multiplier, shift = tables(form, r)
    m = writer.array("int32_t", f"{name}_multiplier", multiplier)
    s = writer.array("int8_t", f"{name}_shift", shift)  # exponents fit a byte: 3 bytes of flash a channel
    return struct(multiplier=m, shift=s, act_min=r.act_min, act_max=r.act_max)


def int_array(values: Sequence[int], length: int = MAX_DIMS) -> str:
    """An int array member initializer, zero-filled to `length` entries."""
    values = [int(v) for v in values]
    if len(values) > length:
        raise ValueError(f"{len(values)} values for an array of {length}")
    return "{" + ", ".join(map(str, values + [0] * (length - len(values)))) + "}"


def row_major_strides(shape: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= int(d)
    return strides[::-1]


def operand_shapes(step, graph, constants) -> list[tuple[int, ...]]:
    """Each operand's shape in TFLite order: a constant's own, else the next activation input's."""
    activations = iter(step.inputs)
    return [tuple(graph.tensors[next(activations)].shape) if c is None else tuple(c.shape) for c in constants]
