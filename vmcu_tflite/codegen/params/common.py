"""Initializers shared by the params emitters."""
from __future__ import annotations

from ..cwriter import CWriter


def dims(shape) -> str:
    """A vmcu_dims initializer: NHWC, leading dimensions filled with 1."""
    shape = (1,) * (4 - len(shape)) + tuple(int(d) for d in shape)
    return "{" + ", ".join(map(str, shape)) + "}"


def requant(writer: CWriter, name: str, r) -> str:
    """A vmcu_requant initializer from a `Requantization`."""
    m = writer.array("int32_t", f"{name}_multiplier", r.multiplier)
    s = writer.array("int32_t", f"{name}_shift", r.shift)
    return f"{{{m}, {s}, {r.act_min}, {r.act_max}}}"
