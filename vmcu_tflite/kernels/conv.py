"""CONV_2D with a window (stems, k x k, strided, dilated, grouped): the paper's conv kernel (fig. 5).

Iterations (n, y, x, output segment q); pointwise convolutions are GEMMs (`gemm.py`). Output
channels go two at a time within a segment (one at a time in a grouped convolution). Three ways to read a window, chosen
by the configuration:

- gather: a small window of a single-group convolution (a stem: few input channels) is copied
  once per output pixel into a buffer of [K_h][K_w][C_in], taps outside the input left at the
  input zero point (they add exactly 0); every channel is then one dot product;
- rows: without groups and x-dilation, the in-bounds taps of one kernel row are one run of the
  input, read once per channel pair and kernel row;
- taps: otherwise one run of the group's input channels per tap.
"""
from __future__ import annotations

from .index import Var, floor_div, imin
from .ir import (Broadcast, Dot, FlashLoad, InitBias, Kernel, RAMLoad, RAMStore, RegAlloc, Requantize, loop)
from .window import taps

GATHER_BYTES = 128  # largest window gathered per pixel (bytes of stack)


def conv2d(params, segment: int) -> Kernel:
    p = params
    n_, h, w, c_in = p.input_shape
    _, o_h, o_w, c_out = p.output_shape
    _, k_h, k_w, fc = p.filter.shape
    (s_h, s_w), (d_h, d_w), (p_h, p_w) = p.stride, p.dilation, p.padding
    per_group = c_out // (c_in // fc)
    window = k_h * k_w * fc
    way = ("gather" if fc == c_in and window <= GATHER_BYTES and k_h * k_w > 1
           else "rows" if fc == c_in and d_w == 1 else "taps")
    n, y, x, q, u, ky, kx = (Var(v) for v in ("n", "y", "x", "q", "u", "ky", "kx"))
    rows, cols = taps(y, s_h, p_h, d_h, k_h, h), taps(x, s_w, p_w, d_w, k_w, w)
    first, end = q * segment, imin(q * segment + segment, c_out)
    group = floor_div(u, per_group)
    # Channels go by pairs within a segment; a grouped convolution goes one channel at a time, so
    # that a pair never straddles two groups (which read different input channels).
    width = 2 if per_group == c_out else 1
    pair = imin(end - u, width)
    row_start = ((n * h + rows.origin + ky * d_h) * w + cols.origin) * c_in  # tap (ky, 0), channel 0
    unit = [RegAlloc("acc", "int32_t", 2),
            FlashLoad("w0", "p->filter", u * window),
            FlashLoad("w1", "p->filter", imin(u + 1, c_out - 1) * window),
            InitBias("acc", "p->bias", u, pair)]
    if way == "gather":
        pixel_reads = [
            RegAlloc("window", "int8_t", window, fill="(int8_t)(-p->input_offset)"),
            loop("ky", rows.lo, rows.hi, [
                RAMLoad("win", "input0", row_start + cols.lo * d_w * c_in, c_in * (1 if d_w > 1 else cols.hi - cols.lo),
                        runs=cols.hi - cols.lo if d_w > 1 else 1, run_stride=d_w * c_in, max_bytes=k_w * c_in,
                        into="window", into_index=(ky * k_w + cols.lo) * c_in),
            ], extent=k_h)]
        unit.append(Dot("acc", 0, "window", 0, ("w0", "w1"), 0, window, "offsets", "p->input_offset", pair))
    elif way == "rows":
        pixel_reads = []
        unit.append(loop("ky", rows.lo, rows.hi, [
            RAMLoad("run", "input0", row_start + cols.lo * c_in, (cols.hi - cols.lo) * c_in, max_bytes=k_w * c_in),
            Dot("acc", 0, "run", 0, ("w0", "w1"), (ky * k_w + cols.lo) * c_in, (cols.hi - cols.lo) * c_in,
                "offsets", "p->input_offset", pair),
        ], extent=k_h))
    else:
        pixel_reads = []
        unit.append(loop("ky", rows.lo, rows.hi, [
            loop("kx", cols.lo, cols.hi, [
                RAMLoad("run", "input0", row_start + kx * d_w * c_in + group * fc, fc, max_bytes=fc),
                Dot("acc", 0, "run", 0, ("w0", "w1"), (ky * k_w + kx) * fc, fc, "offsets", "p->input_offset", pair),
            ], extent=k_w),
        ], extent=k_h))
    unit.append(Requantize("seg", u - first, "acc", pair, u, "p"))
    segments = -(-c_out // segment)
    body = (
        Broadcast("offsets", "p->input_offset"),
        loop("n", 0, n_, [loop("y", 0, o_h, [loop("x", 0, o_w, pixel_reads + [
            loop("q", 0, segments, [
                RegAlloc("seg", "int8_t", segment),
                loop("u", first, end, unit, step=width, extent=-(-segment // width)),
                RAMStore("output", ((n * o_h + y) * o_w + x) * c_out + first, end - first, "seg"),
            ]),
        ])])]),
    )
    signature = ("conv2d", way, tuple(p.input_shape), tuple(p.output_shape), tuple(p.filter.shape), p.stride,
                 p.dilation, p.padding, segment)
    return Kernel(name="conv2d", params_type="vmcu_conv_params", signature=signature,
                  tensors={"input0": n_ * h * w * c_in, "output": n_ * o_h * o_w * c_out}, body=body,
                  doc=f"CONV_2D {k_h}x{k_w} ({way}) {p.input_shape} -> {p.output_shape}, {segment}-byte segments")
