"""CAST between integer types: each element converted as C++'s static_cast does (TFLite Micro's
cast.cc), which for integers is the value modulo 2^bits of the output type. No quantization is
read: an int8 tensor's scale and zero point play no part, as in TFLite Micro.

TFLite Micro casts from and to int8, int16, int32, uint32, float32 and bool. The integer pairs run
here (an audio front end's uint32 energies to int32 and back, its int32 features to int8); float32
and bool are refused in one line (float32 to an integer type is undefined in C++ out of range, and
no integer model here needs them).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.cast import emit
from ..graph import Graph, Op
from .common import output, require, tensor
from .spec import ONE_INPUT, OpSpec

KIND = "CAST"
TYPES = ("int8", "int16", "int32", "uint32")


@dataclass(frozen=True)
class CastParams:
    input_type: str
    output_type: str
    shape: tuple[int, ...]

    @property
    def count(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count


def prepare(graph: Graph, op: Op) -> CastParams:
    x, y = tensor(graph, op, 0), output(graph, op)
    bad = [f"{name} type {t.dtype.upper()}" for name, t in (("input", x), ("output", y)) if t.dtype not in TYPES]
    require(not bad, op, f"{' and '.join(bad)} not supported (integer casts between "
                         f"{', '.join(t.upper() for t in TYPES)})")
    require(x.num_elements == y.num_elements, op, f"input shape {x.shape} and output shape {y.shape} hold different "
                                                  "numbers of elements (TFLite Micro's MatchingFlatSize)")
    return CastParams(input_type=x.dtype, output_type=y.dtype, shape=y.shape)


SPEC = OpSpec(KIND, kind_id=47, emit=emit, prepare=prepare, c_kernel="vmcu_cast", arity=ONE_INPUT,
              options="CastOptions", activation_types=frozenset(TYPES) - {"int8"})
