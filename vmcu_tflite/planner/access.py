"""Segment access functions of the streaming kernels not written in the kernel language (paper section 3).

A streaming kernel runs over an iteration box (row-major: the last dimension varies fastest) and
each iteration writes one output segment. For the input it streams over, each iteration reads a
byte range. Both are written as sums of clipped affine functions of the iteration vector: the
paper's access matrices A_u and offsets V_u composed with the row-major mapping vector L_addr,
plus the clamps that borders (padding) and partial last segments need.

The same description serves two readers: the gap solver (symbolically, with CP-SAT) and the
reference interpreter (evaluated on every iteration, to replay loads, frees and stores in the
kernel's order). Conv, depthwise, fully connected and fused kernels have none: their access
functions come from their descriptions in `vmcu_tflite/kernels/`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..graph import Graph

if TYPE_CHECKING:
    from ..steps import Step


@dataclass(frozen=True)
class Term:
    """coef * clip(weights . i + offset, lo, hi)."""

    coef: int
    weights: tuple[int, ...]
    offset: int = 0
    lo: int | None = None
    hi: int | None = None

    def evaluate(self, grid: np.ndarray) -> np.ndarray:
        value = np.tensordot(np.asarray(self.weights, dtype=np.int64), grid, axes=1) + self.offset
        if self.lo is not None or self.hi is not None:
            value = np.clip(value, self.lo, self.hi)
        return self.coef * value


@dataclass(frozen=True)
class Expr:
    """A byte offset as a sum of terms plus a constant."""

    const: int
    terms: tuple[Term, ...] = ()

    def evaluate(self, grid: np.ndarray) -> np.ndarray:
        total = np.full(grid.shape[1:], self.const, dtype=np.int64)
        for term in self.terms:
            total = total + term.evaluate(grid)
        return total


def affine(weights: Sequence[int], const: int = 0) -> Expr:
    return Expr(const, (Term(1, tuple(weights)),))


@dataclass(frozen=True)
class AccessPattern:
    """How one step streams: iterations, output bytes written, and streamed-input bytes read.

    `read_lo`/`read_hi` bound the bytes iteration i reads (hi exclusive); every byte below the
    smallest `read_lo` of the iterations still to come is consumed and may be overwritten.
    """

    dims: tuple[int, ...]
    write_lo: Expr
    write_hi: Expr
    read_lo: Expr
    read_hi: Expr

    @property
    def iterations(self) -> int:
        return int(np.prod(self.dims, dtype=np.int64))

    def grid(self) -> np.ndarray:
        """All iteration vectors in execution order: array [len(dims), iterations]."""
        return np.indices(self.dims, dtype=np.int64).reshape(len(self.dims), -1)

    def schedule(self) -> dict[str, np.ndarray]:
        grid = self.grid()
        return {name: getattr(self, name).evaluate(grid) for name in ("write_lo", "write_hi", "read_lo", "read_hi")}


def _segments(channels: int, segment: int) -> int:
    return -(-channels // segment)


def windowed(in_shape, out_shape, kernel_hw, stride, dilation, padding, segment: int, channel_reads: bool,
             element: int = 1):
    """Pooling (and any windowed op): iterations (n, oy, ox, output-channel segment).

    The window of output pixel (oy, ox) starts at input row oy*s - pad and column ox*s - pad,
    clipped to the input; `channel_reads` says the iteration reads only its own channel segment
    (depthwise, pooling) rather than every input channel (convolution). Shapes count elements of
    `element` bytes (2: int16), `segment` bytes.
    """
    n, h, w, c_in = in_shape
    _, o_h, o_w, c_out = out_shape
    c_in, c_out = c_in * element, c_out * element
    q = _segments(c_out, segment)
    dims = (n, o_h, o_w, q)
    (k_h, k_w), (s_h, s_w), (d_h, d_w), (p_h, p_w) = kernel_hw, stride, dilation, padding
    pixel_out = (o_h * o_w * c_out, o_w * c_out, c_out, 0)
    write_lo = Expr(0, (Term(1, pixel_out), Term(segment, (0, 0, 0, 1))))
    write_hi = Expr(0, (Term(1, pixel_out), Term(1, (0, 0, 0, segment), segment, hi=c_out)))
    first_row = Term(w * c_in, (0, s_h, 0, 0), -p_h, lo=0, hi=h - 1)
    first_col = Term(c_in, (0, 0, s_w, 0), -p_w, lo=0, hi=w - 1)
    last_row = Term(w * c_in, (0, s_h, 0, 0), -p_h + (k_h - 1) * d_h, lo=0, hi=h - 1)
    last_col = Term(c_in, (0, 0, s_w, 0), -p_w + (k_w - 1) * d_w, lo=0, hi=w - 1)
    batch = Term(h * w * c_in, (1, 0, 0, 0))
    if channel_reads:
        read_lo = Expr(0, (batch, first_row, first_col, Term(segment, (0, 0, 0, 1))))
        read_hi = Expr(0, (batch, last_row, last_col, Term(1, (0, 0, 0, segment), segment, hi=c_in)))
    else:
        read_lo = Expr(0, (batch, first_row, first_col))
        read_hi = Expr(c_in, (batch, last_row, last_col))
    return AccessPattern(dims, write_lo, write_hi, read_lo, read_hi)


def elementwise(total: int, segment: int) -> AccessPattern:
    """Same-shape element-wise ops (and softmax with segment = a row): read segment i, write segment i."""
    q = _segments(total, segment)
    return AccessPattern(
        dims=(q,),
        write_lo=affine((segment,)),
        write_hi=Expr(0, (Term(1, (segment,), segment, hi=total),)),
        read_lo=affine((segment,)),
        read_hi=Expr(0, (Term(1, (segment,), segment, hi=total),)),
    )


def channel_reduction(pixels: int, channels: int, segment: int, element: int = 1) -> AccessPattern:
    """MEAN over every pixel of an [N=1, H, W, C] input: one channel segment at a time.

    Iteration q reads channel segment q of every pixel, accumulates, then writes output segment q
    (`channels` elements of `element` bytes, `segment` bytes).
    """
    channels = channels * element
    q = _segments(channels, segment)
    return AccessPattern(
        dims=(q,),
        write_lo=affine((segment,)),
        write_hi=Expr(0, (Term(1, (segment,), segment, hi=channels),)),
        read_lo=affine((segment,)),
        read_hi=Expr((pixels - 1) * channels, (Term(1, (segment,), segment, hi=channels),)),
    )


def concatenation(outer: int, inner_x: int, inner_out: int, before_x: int) -> AccessPattern:
    """CONCATENATION, streamed over input x: iterations (outer row p, half h).

    Row p of the output is the inputs' rows p one after another. Half 0 copies the inputs before x
    (`before_x` bytes of the row), half 1 copies x's row p and the rest; both count as reading x's
    row p, so nothing written in half 0 may land on it.
    """
    return AccessPattern(
        dims=(outer, 2),
        write_lo=Expr(0, (Term(inner_out, (1, 0)), Term(before_x, (0, 1)))),
        write_hi=Expr(before_x, (Term(inner_out, (1, 0)), Term(inner_out - before_x, (0, 1)))),
        read_lo=affine((inner_x, 0)),
        read_hi=affine((inner_x, 0), inner_x),
    )


def rows(dims: tuple[int, ...], read_weights: tuple[int, ...], read_bytes: int, write_weights: tuple[int, ...],
         write_bytes: int) -> AccessPattern:
    """A kernel that reads one input row, then writes one output row, per iteration: row i of the input
    is [read_weights . i, + read_bytes), of the output [write_weights . i, + write_bytes) (an LSTM's
    time steps: input row t in, output row t out, the rows of different widths)."""
    return AccessPattern(dims=dims, write_lo=affine(write_weights), write_hi=affine(write_weights, write_bytes),
                         read_lo=affine(read_weights), read_hi=affine(read_weights, read_bytes))


def padded_rows(in_shape: Sequence[int], out_shape: Sequence[int], before: Sequence[int],
                row_bytes: int) -> AccessPattern:
    """PAD with nothing added to the innermost dimension: iterations are the output's rows (every index
    but the last, row-major), each written whole (`row_bytes`), the input row it copies read first. A
    row in the padding reads nothing; here it counts as reading the input row its index clips to (a
    conservative bound: those bytes stay unwritten until that row is done)."""
    lead_in, lead_out = tuple(in_shape[:-1]) or (1,), tuple(out_shape[:-1]) or (1,)
    before = tuple(before[:-1]) or (0,)
    in_rows = np.cumprod((1,) + lead_in[:0:-1])[::-1].tolist()  # input rows per step of each index
    out_rows = np.cumprod((1,) + lead_out[:0:-1])[::-1].tolist()
    k = len(lead_out)
    unit = lambda d: tuple(int(d == e) for e in range(k))  # noqa: E731
    clipped = tuple(Term(row_bytes * int(stride), unit(d), -int(b), lo=0, hi=int(size) - 1)
                    for d, (stride, b, size) in enumerate(zip(in_rows, before, lead_in)))
    written = Term(row_bytes, tuple(int(s) for s in out_rows))
    return AccessPattern(dims=lead_out, write_lo=Expr(0, (written,)), write_hi=Expr(row_bytes, (written,)),
                         read_lo=Expr(0, clipped), read_hi=Expr(row_bytes, clipped))


def same_shape(graph: Graph, step: Step, position: int, segment: int) -> AccessPattern | None:
    """Element-wise ops stream over an operand only when it is not broadcast."""
    x, y = graph.tensors[step.inputs[position]], graph.tensors[step.outputs[0]]
    if x.num_elements != y.num_elements or x.shape != y.shape:
        return None
    return elementwise(y.num_bytes, segment)
