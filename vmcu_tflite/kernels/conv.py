"""CONV_2D with a window (stems, k x k, strided, dilated, grouped): the paper's conv kernel (fig. 5).

Iterations (n, y, x, output segment q); pointwise convolutions are GEMMs (`gemm.py`). Output
channels go two at a time within a segment (one at a time in a grouped convolution, so that a
pair never straddles two groups); a gathered window goes two pixels at a time (x and x + 1,
the GEMM's 2x2 tile). That only moves reads earlier and stores later: no byte is needed longer. How an output pixel reads its window (`conv_pixel`, which the
fused block's lead convolution uses too) depends on the configuration:

- pixel: a 1x1, stride 1, unpadded convolution reads its input pixel (or two: a fused block's
  lead) once, before its channels;
- gather: a small window of a single-group convolution (a stem: few input channels) is copied
  once per output pixel into a buffer of [K_h][K_w][C_in], taps outside the input left at the
  input zero point (they add exactly 0), and widened to 16 bits with the offset added (every
  output channel reads it); every channel is then one dot product. A 16x8 layer's window is
  gathered as its int16 values (taps outside the input left at 0, the int16 zero point), with no
  widening: its filter is stored widened, so each word of inputs meets a word of weights in one SMLAD;
- rows: without groups and x-dilation, the in-bounds taps of one kernel row are one run of the
  input, read once per channel pair and kernel row;
- taps: otherwise one run of the group's input channels per tap.

A nearest-neighbour upsample by whole factors (f_h, f_w) folded into the convolution
(`passes.fold_upsamples`: the params' `upsample`; `input_shape` is then the upsampled shape, the
window's geometry) is an addressing: tap (r, c) of the upsampled input is pixel (r // f_h, c // f_w)
of the tensor read, in bounds wherever the tap is (both >= 0, so floor and C's division agree). A
kernel row's taps are then no run of that tensor (neighbouring taps repeat a pixel), so the window
is gathered tap by tap (or read tap by tap, the taps way, when it is too big to gather), never by
rows or as a pixel. The planner's access functions and the interpreter read the same loads, so the
output may land on input the step has consumed, and the upsampled tensor never exists.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .gemm import ELEMENT_TYPES, WIDEN_BYTES, channel_group, pair_bytes, whole_words
from .index import Const, Ix, Var, floor_div, imin
from .ir import Broadcast, Dot, Kernel, RAMLoad, RAMStore, RegAlloc, Requantize, Widen, loop
from .offset import dot_offset, kernel_bias
from .requant import RequantForm, requant_form, requant_form16
from .tuning import tile_channels
from .window import conv_way, layer_interior, taps


@dataclass(frozen=True)
class PixelConv:
    """One output pixel of a convolution, channel pair by channel pair."""

    way: str
    width: int  # output channels per unit: 2 (4 with the helium tuning), or 1 in a grouped convolution
    reads: list  # statements run once per pixel, before its channels
    unit: Callable[[Ix, Ix], list]  # (u, pair) -> statements accumulating channels u (and u + 1) in acc
    form: RequantForm  # the requantization its constants allow
    tile: int = 1  # output pixels per unit: 2 where the caller asked and the way allows (acc[weight_rows * t + k])
    weight_rows: int = 2  # per unit, at least 2: the accumulators' stride per pixel


def widens_pixels(p, wide: int, tile: int) -> bool:
    """Whether a 1x1 pass over `tile` pixels (`wide` int16 elements each once widened) widens them once
    first: for two pixels or more, and a lone one too for int16 rows (`wide_filter`) or paired rows
    (`paired_weights.py`), whose dot products read only widened inputs; where the copy fits
    `WIDEN_BYTES`. A convolution's pixels and a chain's 1x1 layers decide it here, alike."""
    return ((tile > 1 or wide_filter(p) or getattr(p, "paired_weights", False))
            and wide * tile * 2 <= WIDEN_BYTES)


def wide_filter(p) -> bool:
    """Whether the filter is stored widened to int16 (by the converter, in order): a gathered window
    on the DSP tuning, whose 2x2 tile then multiplies words of inputs and weights as they are, with
    no SXTB16 on the weights for every pixel pair (a stem's filter is small: flash grows by its size),
    and the 1x1 layers chosen for it (`widened_weights.py`). Helium's dot products widen int8 weights
    as they load them; a 16x8 layer's gathered window is int16 on every core (no int16 Helium path:
    two channels per pass everywhere)."""
    if getattr(p, "int16_weights", False):
        return True
    return conv_way(p) == "gather" and (tile_channels(p) == 2 or getattr(p, "element", 1) > 1)


def filter_pitch(p) -> int:
    """Bytes from one output channel's row to the next in the C filter array. A gathered window's
    rows are padded with zeros to a multiple of 4 (codegen/params/conv2d.py writes them so): its
    dot products then run in whole words, with no scalar tail."""
    window = int(np.prod(p.filter.shape[1:]))
    return whole_words(window) if conv_way(p) == "gather" else window


def conv_pixel(p, n: Ix, y: Ix, x: Ix, params: str = "p", offsets: str = "offsets", pixels: Ix | None = None,
               source: str = "input0", tile: int = 2) -> PixelConv:
    """How output pixel (n, y, x) of the convolution `p` reads its window from `source` (a fused
    layer reads a ring of rows); `params` is the C expression of its params (a fused block passes
    its member), `offsets` its Broadcast. With
    `pixels` (up to `tile`: 2, or 3 for a chain row's last tile) a 1x1 or gathered convolution computes
    pixels (n, y, x), (n, y, x + 1), ... per unit, as a GEMM's tile of rows (the `tile` of the result
    says whether it does)."""
    _, h, w, c_in = p.input_shape
    c_out = p.output_shape[3]
    _, k_h, k_w, fc = p.filter.shape
    (s_h, s_w), (d_h, d_w), (p_h, p_w) = p.stride, p.dilation, p.padding
    per_group = c_out // (c_in // fc)
    window = k_h * k_w * fc
    way, pitch = conv_way(p), filter_pitch(p)
    e = getattr(p, "element", 1)  # bytes per activation: 2 for a 16x8 layer (rows or taps, `conv_way`)
    act = ELEMENT_TYPES[e]
    form = (requant_form16(p.bias, p.wide, p.filter, p.requant) if e > 1
            else requant_form(p.filter, p.bias, p.requant, 0, kernel_bias(p)))
    wide = whole_words(window)  # inputs widened to 16 bits
    width = 1 if per_group != c_out else tile_channels(p) if way in ("pixel", "gather") and e == 1 else 2
    weight_rows = max(width, 2)
    weights = tuple(f"w{k}" for k in range(weight_rows))
    ky, kx = Var("ky"), Var("kx")
    rows, cols = taps(y, s_h, p_h, d_h, k_h, h), taps(x, s_w, p_w, d_w, k_w, w)
    f_h, f_w = getattr(p, "upsample", (1, 1))
    upsampled = (f_h, f_w) != (1, 1)
    if upsampled and way == "rows":
        raise ValueError("a convolution through a folded upsample reads its window tap by tap (gather or taps)")

    def source_pixel(row: Ix, col: Ix) -> Ix:
        """The pixel of the tensor read at (row, col) of the upsampled input (in bounds: both >= 0)."""
        return (n * (h // f_h) + floor_div(row, f_h)) * (w // f_w) + floor_div(col, f_w)

    row_start = ((n * h + rows.origin + ky * d_h) * w + cols.origin) * c_in  # tap (ky, 0), channel 0
    x_offset = "0" if e > 1 else dot_offset(p, params)  # "0" where the bias holds it (offset.py), or int16
    tile = tile if way in ("pixel", "gather") and pixels is not None else 1
    count = 1 if tile == 1 else pixels
    reads = []
    int16 = wide_filter(p)  # int16 rows: the inputs widened in order, a lone pixel's too
    paired = getattr(p, "paired_weights", False)  # rows in pairs (paired_weights.py): a lone pixel widened too
    widened = way == "gather" or (way == "pixel" and widens_pixels(p, wide, tile))
    if (int16 or paired) and not widened:
        raise ValueError(f"a convolution of {'int16' if int16 else 'paired'} weights over {c_in} inputs it does not "
                         "widen")
    if way == "pixel":
        t = Var("t")
        reads = [RAMLoad("run", source, ((n * h + y) * w + x) * c_in, c_in * count, max_bytes=c_in * tile)]
        if widened:  # the pixels every channel pair reads, widened once
            reads += [RegAlloc("wide", "int16_t", wide * tile),
                      loop("t", 0, count, [Widen("wide", t * wide, "run", t * c_in, c_in, offsets, x_offset,
                                                 natural=int16)])]
    if way == "gather" and upsampled:  # tap by tap, each from its source pixel; the padding left at the zero point
        t, kx = Var("t"), Var("kx")
        cols_t = taps(x + t, s_w, p_w, d_w, k_w, w)
        into = "wide" if e > 1 else "window"
        reads = [
            RegAlloc(into, act, pitch * tile, fill="0" if e > 1 else f"(int8_t)(-{params}->input_offset)"),
            loop("t", 0, count, [loop("ky", rows.lo, rows.hi, [loop("kx", cols_t.lo, cols_t.hi, [
                RAMLoad("win", source, source_pixel(rows.origin + ky * d_h, cols_t.origin + kx * d_w) * c_in * e,
                        c_in * e, max_bytes=c_in * e, into=into, into_index=t * pitch + (ky * k_w + kx) * c_in,
                        ctype=act),
            ])])])]
        if e == 1:  # widened once with the offset, as an int8 gathered window is
            reads += [RegAlloc("wide", "int16_t", pitch * tile),
                      loop("t", 0, count, [Widen("wide", t * pitch, "window", t * pitch, pitch, offsets, x_offset,
                                                 natural=wide_filter(p))])]
    elif way == "gather" and e > 1:  # int16 inputs as they are: the padding left at 0 (the int16 zero point)
        t = Var("t")
        cols_t = taps(x + t, s_w, p_w, d_w, k_w, w)
        start_t = ((n * h + rows.origin + ky * d_h) * w + cols_t.origin) * c_in
        reads = [
            RegAlloc("wide", act, pitch * tile, fill="0"),
            loop("t", 0, count, [loop("ky", rows.lo, rows.hi, [
                RAMLoad("win", source, (start_t + cols_t.lo * d_w * c_in) * e,
                        c_in * e * (1 if d_w > 1 else cols_t.hi - cols_t.lo),
                        runs=cols_t.hi - cols_t.lo if d_w > 1 else 1, run_stride=d_w * c_in * e, max_bytes=k_w * c_in * e, into="wide",
                        into_index=t * pitch + (ky * k_w + cols_t.lo) * c_in, ctype=act),
            ])])]
    elif way == "gather":  # pixel x + t's window at pitch * t, its padding left at the zero point (0 once widened)
        t = Var("t")
        cols_t = taps(x + t, s_w, p_w, d_w, k_w, w)
        start_t = ((n * h + rows.origin + ky * d_h) * w + cols_t.origin) * c_in
        reads = [
            RegAlloc("window", "int8_t", pitch * tile, fill=f"(int8_t)(-{params}->input_offset)"),
            loop("t", 0, count, [loop("ky", rows.lo, rows.hi, [
                RAMLoad("win", source, start_t + cols_t.lo * d_w * c_in,
                        c_in * (1 if d_w > 1 else cols_t.hi - cols_t.lo), runs=cols_t.hi - cols_t.lo if d_w > 1 else 1,
                        run_stride=d_w * c_in, max_bytes=k_w * c_in, into="window",
                        into_index=t * pitch + (ky * k_w + cols_t.lo) * c_in),
            ])]),
            RegAlloc("wide", "int16_t", pitch * tile),
            loop("t", 0, count, [Widen("wide", t * pitch, "window", t * pitch, pitch, offsets, x_offset,
                                       natural=wide_filter(p))])]


    def unit(u: Ix, pair: Ix) -> list:
        start = channel_group(params, u, c_out, pitch, pair, tile, form, weight_rows,
                              "int16_t" if wide_filter(p) else "int8_t", paired)
        if way == "pixel":
            x, stride = ("wide", wide) if widened else ("run", c_in)
            return start + [Dot("acc", 0, x, 0, weights, 0, c_in, offsets, x_offset, pair, count, stride,
                                paired=paired)]
        if way == "gather":
            return start + [Dot("acc", 0, "wide", 0, weights, 0, pitch, offsets, x_offset, pair, count, pitch)]
        if way == "rows":
            return start + [loop("ky", rows.lo, rows.hi, [
                RAMLoad("run", source, (row_start + cols.lo * c_in) * e, (cols.hi - cols.lo) * c_in * e,
                        max_bytes=k_w * c_in * e, ctype=act),
                Dot("acc", 0, "run", 0, ("w0", "w1"), (ky * k_w + cols.lo) * c_in, (cols.hi - cols.lo) * c_in,
                    offsets, x_offset, pair),
            ])]
        group = floor_div(u, per_group)
        tap = (source_pixel(rows.origin + ky * d_h, cols.origin + kx * d_w) * c_in if upsampled
               else row_start + kx * d_w * c_in)
        return start + [loop("ky", rows.lo, rows.hi, [
            loop("kx", cols.lo, cols.hi, [
                RAMLoad("run", source, (tap + group * fc) * e, fc * e, max_bytes=fc * e, ctype=act),
                Dot("acc", 0, "run", 0, ("w0", "w1"), (ky * k_w + kx) * fc, fc, offsets, x_offset, pair),
            ]),
        ])]

    return PixelConv(way, width, reads, unit, form, tile, weight_rows)


def conv2d(params, segment: int) -> Kernel:
    """The kernel of a windowed convolution; `segment` in bytes (whole elements of a 16x8 layer's
    int16 outputs: its pool offsets are bytes, its buffers' indexes elements)."""
    p = params
    n_, h, w, c_in = p.input_shape
    _, o_h, o_w, c_out = p.output_shape
    e = getattr(p, "element", 1)
    if segment % e:
        raise ValueError(f"CONV_2D of {e}-byte elements in segments of {segment} bytes")
    segment //= e
    n, y, x, q, u, t = (Var(v) for v in ("n", "y", "x", "q", "u", "t"))
    pixel = conv_pixel(p, n, y, x, pixels=imin(o_w - x, 2))
    tile = imin(o_w - x, pixel.tile)  # pixels x, x + 1 where the window is gathered
    first, end = q * segment, imin(q * segment + segment, c_out)
    pair = imin(end - u, pixel.width)
    segments = -(-c_out // segment)
    requantize = Requantize("seg", u - first, "acc", pair, u, "p", pixel.form, pixels=tile, dst_stride=Const(segment),
                            acc_stride=Const(pixel.weight_rows))
    body = (
        Broadcast("offsets", dot_offset(p, "p")),
        loop("n", 0, n_, [loop("y", 0, o_h, [loop("x", 0, o_w, pixel.reads + [
            loop("q", 0, segments, [
                RegAlloc("seg", ELEMENT_TYPES[e], pair_bytes(segment * pixel.tile)),
                loop("u", first, end, pixel.unit(u, pair) + [requantize], step=pixel.width),
                loop("t", 0, tile, [
                    RAMStore("output", (((n * o_h + y) * o_w + x + t) * c_out + first) * e, (end - first) * e, "seg",
                             t * segment),
                ]),
            ]),
        ], step=pixel.tile,  # a gathered window's interior copies have constant lengths (inlined, no memcpy call)
            interior=layer_interior(p, 1) if pixel.way == "gather" else None)])]),
    )
    k_h, k_w = p.filter.shape[1:3]
    upsample = getattr(p, "upsample", (1, 1))
    signature = ("conv2d", pixel.way, tuple(p.input_shape), tuple(p.output_shape), tuple(p.filter.shape), p.stride,
                 p.dilation, p.padding, segment, pixel.width) + ((ELEMENT_TYPES[e], p.wide) if e > 1 else ()) + (
                     (("upsample",) + tuple(upsample)) if upsample != (1, 1) else ())
    source = n_ * (h // upsample[0]) * (w // upsample[1]) * c_in  # the elements read: a folded upsample's input
    return Kernel(name="conv2d" if e == 1 else "conv2d_s16", params_type="vmcu_conv_params", signature=signature,
                  tensors={"input0": source * e, "output": n_ * o_h * o_w * c_out * e}, body=body,
                  doc=f"CONV_2D {k_h}x{k_w} ({pixel.way}) {p.input_shape} -> {p.output_shape}, {segment * e}-byte "
                      "segments" + (f", {ELEMENT_TYPES[e]} activations" if e > 1 else "")
                      + (f", through a {upsample[0]}x{upsample[1]} nearest upsample of its input" if upsample != (1, 1)
                         else ""), element=e)
