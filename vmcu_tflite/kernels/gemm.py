"""FULLY_CONNECTED and pointwise CONV_2D: In[M, K] x W[N, K]^T, the paper's GEMM kernel (fig. 4).

Iterations (row m, output segment q). Each reads input row m (a pointer into the pool, or a
copy where the row crosses the end of the pool), computes units [qS, min(qS + S, N)) two at a
time into a segment buffer, and stores the segment. The row is freed with its last segment,
before that segment is stored: the store may land on it (paper eq. 1: gap min(N, K) - 1).
"""
from __future__ import annotations

from .index import imin, imax, Var
from .ir import (Broadcast, Dot, FlashLoad, InitBias, Kernel, RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize,
                 loop)
from .requant import GENERAL, RequantForm


def channel_pair(params: str, u, units: int, window: int, pair) -> list:
    """Accumulators of output channels u and u + 1 (`pair` of them used) started at their bias, and
    pointers w0, w1 to their `window`-byte filter rows (w1 stays inside the filter when unused)."""
    return [RegAlloc("acc", "int32_t", 2),
            FlashLoad("w0", f"{params}->filter", u * window),
            FlashLoad("w1", f"{params}->filter", imin(u + 1, units - 1) * window),
            InitBias("acc", f"{params}->bias", u, pair)]


def gemm(rows: int, depth: int, units: int, segment: int, params_type: str, stem: str,
         form: RequantForm = GENERAL) -> Kernel:
    """`params_type` is the C params struct (conv or fully connected); both name the same members;
    `form` what the layer's constants prove about its requantization (`requant.py`)."""
    m, q, u = Var("m"), Var("q"), Var("u")
    segments = -(-units // segment)
    first, end = q * segment, imin(q * segment + segment, units)
    pair = imin(end - u, 2)
    body = (
        Broadcast("offsets", "p->input_offset"),
        loop("m", 0, rows, [
            loop("q", 0, segments, [
                RAMLoad("x", "input0", m * depth, depth, max_bytes=depth),
                RegAlloc("seg", "int8_t", segment),
                loop("u", first, end, [
                    *channel_pair("p", u, units, depth, pair),
                    Dot("acc", 0, "x", 0, ("w0", "w1"), 0, depth, "offsets", "p->input_offset", pair),
                    Requantize("seg", u - first, "acc", pair, u, "p", form),
                ], step=2),
                RAMFree("input0", m * depth, depth * imax(q - (segments - 2), 0)),
                RAMStore("output", m * units + first, end - first, "seg"),
            ]),
        ]),
    )
    return Kernel(name=stem, params_type=params_type, signature=("gemm", rows, depth, units, segment),
                  tensors={"input0": rows * depth, "output": rows * units}, body=body,
                  doc=f"GEMM [{rows} x {depth}] x [{depth} x {units}], {segment}-byte segments")
