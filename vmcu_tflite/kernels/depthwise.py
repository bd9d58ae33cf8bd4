"""DEPTHWISE_CONV_2D (any depth multiplier, stride, dilation, padding).

Streaming (segment and whole-tensor modes): iterations (n, y, x, channel segment q). Channels go
four at a time (one word of input and one of filter per tap: SMLABB/SMLATT) with a depth
multiplier of 1, one at a time otherwise; for each group of channels every in-bounds kernel row
is one strided load (one run of the group's channels per tap).

In place (multiplier 1, output at the input's base; TinyEngine's trick): per channel segment,
the segment's plane of the input (every pixel, those channels) is copied to the workspace and
freed, then every output pixel of those channels is computed from the plane and stored at its
NHWC place, which holds only input bytes already copied.
"""
from __future__ import annotations

from dataclasses import dataclass

from .index import Const, Ix, Var, floor_div, imax, imin
from .ir import (Broadcast, DotLanes, DotLanesPair, DotRow, FlashLoad, InitBias, Kernel, Loop, RAMFree, RAMLoad, RAMStore,
                 RegAlloc, Requantize, Workspace, loop)
from .gemm import ELEMENT_TYPES
from .requant import requant_form, requant_form16
from .planes import column_pair_planes, in_place_padded, one_channel_planes_first
from .tuning import depthwise_lanes, lane_ordered
from .window import Taps, layer_interior, taps


def depthwise_pixel(p, source: str, base, pixel_bytes, channel0, first, end, lanes_max: int,
                    dst: str = "seg", params: str = "p", offsets: str = "offsets", x: Ix | None = None,
                    dst_base: Ix | int = 0, registers: str | None = None, y: Ix | None = None,
                    window: str | None = None, window_cols: int | None = None, window_x: Ix | int = 0):
    """Compute channels [first, end) of output pixel (n, y, x) into buffer `dst` from `dst_base`
    on, reading `source`.

    Pixel i of the source starts at byte base + i * pixel_bytes and holds input channels from
    `channel0` on (a plane in the workspace holds only its own channels). `params` is the C
    expression of the depthwise params (a fused block passes its member); `x` the output column
    (default: the loop variable x) and `y` its row (default: the loop variable y); `registers` a buffer holding the channel's k_h * k_w taps
    (one channel at a time: lanes_max 1); `window` a buffer holding the pixel's whole k_h x k_w x C
    input window, taps outside the input at the zero point (a chain that recomputes its rows):
    every tap is read from it, none from `source`; its rows `window_cols` pixels wide (default k_w:
    one pixel's window), the pixel's window from column `window_x` on (several pixels' windows in one).
    """
    _, h, w, _ = p.input_shape
    _, k_h, k_w, c_out = p.filter.shape
    (s_h, s_w), (d_h, d_w), (p_h, p_w) = p.stride, p.dilation, p.padding
    mult = p.depth_multiplier
    n, c, ky, kx = (Var(v) for v in ("n", "c", "ky", "kx"))
    x = Var("x") if x is None else x
    y = Var("y") if y is None else y
    rows, cols = taps(y, s_h, p_h, d_h, k_h, h), taps(x, s_w, p_w, d_w, k_w, w)
    lanes = imin(end - first - c, lanes_max)
    channel = first + c
    in_channel = floor_div(channel, mult) - channel0
    e = getattr(p, "element", 1)  # a 16x8 layer's int16 pixels: pool offsets in bytes, indexes in elements
    form = requant_form16(p.bias, p.wide) if e > 1 else requant_form(p.filter, p.bias, p.requant, -1)
    row_start = base + ((n * h + rows.origin + ky * d_h) * w + cols.origin + cols.lo * d_w) * pixel_bytes + in_channel
    ordered = lane_ordered(p)
    if window is not None:  # the whole window in registers: every tap, no clamps (padding adds 0)
        c_in, pitch = p.input_shape[3], window_cols or k_w
        rows = Taps(Const(0), Const(0), Const(k_h))
        row = [loop("kx", 0, k_w, [
            DotLanes("acc", window, (ky * pitch + window_x + kx) * c_in + in_channel, f"{params}->filter",
                     (ky * k_w + kx) * c_out + channel, lanes, offsets, f"{params}->input_offset", ordered)])]
    elif registers and pixel_bytes * d_w == 1:  # one-channel plane: the window row is contiguous bytes
        row = [RAMLoad("row", source, row_start, cols.hi - cols.lo, max_bytes=k_w),
               DotRow("acc", "row", 0, registers, ky * k_w + cols.lo, cols.hi - cols.lo, offsets,
                      f"{params}->input_offset")]
    elif e > 1:
        if window is not None or registers:
            raise ValueError("a 16x8 depthwise layer's pixels are read from the pool")
        row = [RAMLoad("row", source, row_start * e, (lanes if mult == 1 else Const(1)) * e, runs=cols.hi - cols.lo,
                       run_stride=pixel_bytes * d_w * e, max_bytes=k_w * lanes_max * e, ctype=ELEMENT_TYPES[e])]
    else:
        row = [RAMLoad("row", source, row_start, lanes if mult == 1 else Const(1), runs=cols.hi - cols.lo,
                       run_stride=pixel_bytes * d_w, max_bytes=k_w * lanes_max)]
    if window is None and not (registers and pixel_bytes * d_w == 1):
        row += [
               loop("kx", cols.lo, cols.hi, [
                   DotLanes("acc", "row", (kx - cols.lo) * d_w * pixel_bytes, registers or f"{params}->filter",
                            ky * k_w + kx if registers else (ky * k_w + kx) * c_out + channel, lanes, offsets,
                            f"{params}->input_offset", ordered and not registers),
               ])]
    return [
        loop("c", 0, end - first, [
            RegAlloc("acc", "int64_t" if form.wide else "int32_t", lanes_max),
            InitBias("acc", f"{params}->bias", channel, lanes, ctype=form.bias),
            loop("ky", rows.lo, rows.hi, row),
            Requantize(dst, dst_base + c, "acc", lanes, channel, params, form),
        ], step=lanes_max),
    ]


def pairs_pixels(p) -> bool:
    """Whether a depthwise layer's output pixels can go two at a time (`depthwise_pair`): a stride of
    1 or 2 and a dilation of 1 along the row, multiplier 1, and groups of four channels (the DSP
    tuning's) or eight (Helium's)."""
    return (p.depth_multiplier == 1 and p.stride[1] in (1, 2) and p.dilation[1] == 1
            and depthwise_lanes(p) in (4, 8))


def triples_pixels(p) -> bool:
    """Whether a depthwise layer's output pixels go three at a time (`depthwise_pair` of three): the
    DSP tuning's groups of four, where a half group's six accumulators, its last two taps' weights and
    a column stay in registers (at a stride of 2, by even and odd taps: each a stride of 1 over every
    other column), and windows of 5 columns or more, which a pair takes by halves too (a pair takes a
    3x3 window's halves in one pass, and the rows' pointers and loops a triple's halves add cost more
    than the columns it shares: MCUNet-320KB's 3x3 chains ran 2-9 % slower in threes); not where the
    layer asks for the least code (`pixel_triples`, widened_weights.py)."""
    return (pairs_pixels(p) and p.filter.shape[2] >= 5 and depthwise_lanes(p) == 4
            and getattr(p, "tuning", "dsp") == "dsp" and getattr(p, "pixel_triples", True))


@dataclass(frozen=True)
class PairColumns:
    """The kernel columns of output pixels x, x + 1 (and x + 2: a triple) along a row, pixel p's window
    p * `shift` (the stride) columns after pixel 0's, so that pixel p's tap t reads pixel 0's column
    t + p * shift."""

    own: tuple[Taps, ...]  # each pixel's taps inside the input
    lo: Ix  # [lo, hi): the taps every pixel has inside the input
    hi: Ix
    first: Ix  # [first, last): the columns any pixel reads, as taps of pixel 0
    last: Ix
    shift: int

    def alone(self, pixel: int) -> tuple[tuple[Ix, Ix], tuple[Ix, Ix]]:
        """Pixel `pixel`'s taps outside [lo, hi) (at the input's left and right edges): the ranges
        before and after them."""
        own = self.own[pixel]
        middle = imin(self.lo, own.hi)
        return (own.lo, middle), (imax(self.hi, middle), own.hi)


def pair_columns(p, x: Ix, pixels: int = 2) -> PairColumns:
    """The columns of output pixels x to x + pixels - 1 of the depthwise layer `p` (a dilation of 1
    along the row)."""
    shift = p.stride[1]
    _, k_w = p.filter.shape[1:3]
    w = p.input_shape[2]
    own = tuple(taps(x + i, shift, p.padding[1], 1, k_w, w) for i in range(pixels))
    lo, hi, first, last = own[0].lo, own[0].hi, own[0].lo, own[0].hi
    for i, cols in enumerate(own[1:], 1):
        lo, hi = imax(lo, cols.lo), imin(hi, cols.hi)
        first, last = imin(first, cols.lo + i * shift), imax(last, cols.hi + i * shift)
    return PairColumns(own, lo, hi, first, last, shift)


def depthwise_pair(p, source: str, base, pixel_bytes, channel0, first_channel, end_channel, dst: str, params: str,
                   offsets: str, x: Ix, y: Ix, dst_base: Ix, dst_step: Ix, lanes_max: int = 4, pixels: int = 2) -> list:
    """Channels [first_channel, end_channel) of output pixels (y, x) and (y, x + 1) (and (y, x + 2):
    `pixels` 3, `triples_pixels`) into `dst` from `dst_base` on (pixel i's i * `dst_step` further),
    reading `source` as `depthwise_pixel` does (pixel i at base + i * pixel_bytes, holding input
    channels from `channel0` on), `lanes_max` (4 or 8) channels at a time.

    Each kernel row is one strided load of the input columns any pixel reads; the taps all pixels
    have inside the input are one DotLanesPair (pixel i's tap t is pixel 0's column t + i * stride),
    and the few that only some of them have (at the input's left and right edges) one tap at a time.
    Wide windows, and every window of a triple, go over their rows twice, channels 0 and 2 then 1 and
    3 (the halfwords of SXTAB16 and of its rotation): a pass's accumulators stay in registers over
    the rows, where the group's would be stored and loaded at every row. Helium's groups (four or
    eight) go over each row once: their two pixels' accumulators are two or four vector registers."""
    _, h, w, _ = p.input_shape
    _, k_h, k_w, c_out = p.filter.shape
    n, c, ky, kx = (Var(v) for v in ("n", "c", "ky", "kx"))
    rows = taps(y, p.stride[0], p.padding[0], p.dilation[0], k_h, h)
    cols = pair_columns(p, x, pixels)
    shift, lo, hi, first, last = cols.shift, cols.lo, cols.hi, cols.first, cols.last
    lanes = imin(end_channel - first_channel - c, lanes_max)
    channel = first_channel + c
    form = requant_form(p.filter, p.bias, p.requant, -1)
    row_start = (base + ((n * h + rows.origin + ky * p.dilation[0]) * w + cols.own[0].origin + first) * pixel_bytes
                 + channel - channel0)
    accs = ("acc", "acc1", "acc2")[:pixels]
    third = accs[2] if pixels == 3 else None

    def alone(acc: str, pixel: int) -> list[Loop]:
        """A pixel's taps outside [lo, hi), one at a time (its tap t at pixel 0's column t + pixel * shift)."""
        return [loop("kx", a, b, [DotLanes(acc, "row", (kx + pixel * shift - first) * pixel_bytes, f"{params}->filter",
                                           (ky * k_w + kx) * c_out + channel, lanes, offsets,
                                           f"{params}->input_offset", lane_ordered(p))])
                for a, b in cols.alone(pixel)]

    def row(half: int | None, rest: list) -> Loop:  # a half's taps of each kernel row, then `rest`
        return loop("ky", rows.lo, rows.hi, [
            RAMLoad("row", source, row_start, lanes, runs=last - first, run_stride=pixel_bytes,
                    max_bytes=(k_w + (pixels - 1) * shift) * lanes_max),
            DotLanesPair("acc", "acc1", "row", (lo - first) * pixel_bytes, pixel_bytes, f"{params}->filter",
                         (ky * k_w + lo) * c_out + channel, c_out, imax(hi - lo, 0), lanes, half, shift, offsets,
                         f"{params}->input_offset", lane_ordered(p), acc2=third),
            *rest])
    edges = [statement for i, acc in enumerate(accs) for statement in alone(acc, i)]
    # wide windows and triples: each half over every row, its accumulators in registers; a pair's 3 taps:
    # both halves per row, where a row's pointer and loop cost more than the accumulators' stores; Helium
    # holds a group of four in one vector per pixel, so both halves at once
    halves = (k_w >= 5 or third is not None) and lanes_max == 4 and getattr(p, "tuning", "dsp") != "helium"
    rows_by_half = [row(0, []), row(1, edges)] if halves else [row(None, edges)]
    return [
        loop("c", 0, end_channel - first_channel, [
            *(RegAlloc(acc, "int32_t", lanes_max) for acc in accs),
            *(InitBias(acc, f"{params}->bias", channel, lanes, ctype=form.bias) for acc in accs),
            *rows_by_half,
            Requantize(dst, dst_base + c, "acc", lanes, channel, params, form, dst_stride=dst_step, acc1="acc1",
                       acc2=third),
        ], step=lanes_max),
    ]


def plane_pair(p, base, x: Ix, y: Ix) -> list:
    """Output pixels (y, x) and (y, x + 1) of a one-channel plane (stride 1 along the row) into
    seg[0] and seg[1], the channel's taps in the buffer "taps". Each kernel row is one load of the
    columns either pixel reads; the taps both pixels have inside the input are one paired DotRow
    (each input word serves both), the few only one of them has (at the plane's left and right
    edges) a DotRow of that pixel alone."""
    _, h, w, _ = p.input_shape
    _, k_h, k_w, _ = p.filter.shape
    n, ky, q = Var("n"), Var("ky"), Var("q")
    rows = taps(y, p.stride[0], p.padding[0], p.dilation[0], k_h, h)
    cols = pair_columns(p, x)  # stride 1: pixel 1's tap t is pixel 0's column t + 1
    lo, hi, first = cols.lo, cols.hi, cols.first
    row_start = base + (n * h + rows.origin + ky * p.dilation[0]) * w + cols.own[0].origin + first
    form = requant_form(p.filter, p.bias, p.requant, -1)

    def alone(acc: str, pixel: int) -> list[DotRow]:
        """A pixel's taps outside [lo, hi), as a row each side."""
        return [DotRow(acc, "row", a + pixel - first, "taps", ky * k_w + a, b - a, "offsets", "p->input_offset")
                for a, b in cols.alone(pixel)]
    return [
        RegAlloc("acc", "int32_t", 1),
        RegAlloc("acc1", "int32_t", 1),
        InitBias("acc", "p->bias", q, 1, ctype=form.bias),
        InitBias("acc1", "p->bias", q, 1, ctype=form.bias),
        loop("ky", rows.lo, rows.hi, [
            RAMLoad("row", "plane", row_start, cols.last - first, max_bytes=k_w + 1),
            DotRow("acc", "row", lo - first, "taps", ky * k_w + lo, imax(hi - lo, 0), "offsets", "p->input_offset",
                   acc1="acc1"),
            *alone("acc", 0), *alone("acc1", 1),
        ]),
        Requantize("seg", 0, "acc", 1, q, "p", form, dst_stride=Const(1), acc1="acc1"),
    ]


# Interior hints (window.layer_interior: the C runs those outputs clamp-free). The in-place and
# streaming kernels split their columns: their pixel body is small, so the three copies cost
# little flash (person detection: 1.3% for 1.8% fewer instructions; KWS's in-place planes: 12%
# fewer); in the fused blocks the copies cost 6-9% of a model's flash for 1-3%. One-channel
# planes split their rows too: their taps sit in registers, which constant kernel rows keep
# there (a plane's whole body is a few taps, so the nine copies cost little flash).


def _interior_pairs(p) -> bool:
    """Whether a row of outputs has a pair of columns clear of both edges: one-channel planes pair
    their pixels for those (an edge pair's rows have lengths the C knows only at run time, where
    each pixel alone has its words)."""
    columns = layer_interior(p, 1)
    return columns is not None and columns[1] - columns[0] >= 3


def plane_pairs(p) -> bool:
    """Whether an in-place layer's one-channel planes take their pixels two at a time: stride 1, a
    kernel row and the next pixel's input in whole words (3 or 7 taps: vmcu_dot_row2_s8; 5 taps run
    as two words each pixel alone), and a row with pairs clear of its edges."""
    _, k_w = p.filter.shape[1:3]
    return p.stride[1] == 1 and p.dilation[1] == 1 and (k_w + 1) % 4 == 0 and _interior_pairs(p)


def depthwise(params, segment: int) -> Kernel:
    """Streaming depthwise; `segment` in bytes (whole elements of a 16x8 layer's int16 outputs, read
    four channels at a time with multiplier 1 on every core)."""
    p = params
    n_, h, w, c_in = p.input_shape
    _, o_h, o_w, c_out = p.output_shape
    e = getattr(p, "element", 1)
    if segment % e:
        raise ValueError(f"DEPTHWISE_CONV_2D of {e}-byte elements in segments of {segment} bytes")
    segment //= e
    lanes = (min(4, segment) if e > 1 else depthwise_lanes(p, segment)) if p.depth_multiplier == 1 else 1
    n, y, x, q = (Var(v) for v in ("n", "y", "x", "q"))
    first, end = q * segment, imin(q * segment + segment, c_out)
    body = (
        Broadcast("offsets", "p->input_offset"),
        loop("n", 0, n_, [loop("y", 0, o_h, [loop("x", 0, o_w, [
            loop("q", 0, -(-c_out // segment), [
                RegAlloc("seg", ELEMENT_TYPES[e], segment),
                *depthwise_pixel(p, "input0", 0, c_in, 0, first, end, lanes),
                RAMStore("output", (((n * o_h + y) * o_w + x) * c_out + first) * e, (end - first) * e, "seg"),
            ]),
        ], interior=layer_interior(p, 1))])]),
    )
    signature = ("depthwise", tuple(p.input_shape), tuple(p.output_shape), tuple(p.filter.shape), p.stride,
                 p.dilation, p.padding, p.depth_multiplier, segment, lanes)
    signature += ((ELEMENT_TYPES[e], p.wide) if e > 1 else ()) + (("lane-ordered",) if lane_ordered(p) else ())
    return Kernel(name="depthwise" if e == 1 else "depthwise_s16", params_type="vmcu_depthwise_params",
                  signature=signature, tensors={"input0": n_ * h * w * c_in * e, "output": n_ * o_h * o_w * c_out * e},
                  body=body, doc=f"DEPTHWISE_CONV_2D {p.filter.shape[1]}x{p.filter.shape[2]} {p.input_shape} -> "
                                 f"{p.output_shape}, {segment * e}-byte segments"
                                 + (f", {ELEMENT_TYPES[e]} activations" if e > 1 else ""), element=e)


def depthwise_in_place(params, segment: int) -> Kernel:
    """Channel plane by channel plane through the workspace (multiplier 1; int8 only: the planner
    never plans a 16x8 layer in place)."""
    p = params
    if getattr(p, "element", 1) != 1:
        raise ValueError("in-place depthwise of int16 planes is not written")
    n_, h, w, c = p.input_shape
    _, o_h, o_w, _ = p.output_shape
    pixels = n_ * h * w
    planes = -(-c // segment)
    q, pixel, n, y, x = (Var(v) for v in ("q", "pixel", "n", "y", "x"))
    first, end = q * segment, imin(q * segment + segment, c)
    width = end - first
    plane = q * pixels * segment  # logical offset of plane q in the workspace tensor
    if c % segment:
        raise ValueError(f"in-place depthwise needs planes that divide the {c} channels, not {segment}")
    if segment == 2 and column_pair_planes(p) or segment == 1 and one_channel_planes_first(p):
        return in_place_padded(p, segment)
    # The plane's pixel-major layout in the workspace: pixel i, channel j at plane + i * segment + j.
    # One-channel planes hold their channel's taps in registers for the whole plane.
    _, k_h, k_w, _ = p.filter.shape
    single = segment == 1
    lanes = 1 if single else depthwise_lanes(p, segment)
    load_taps = [RegAlloc("taps", "int32_t", k_h * k_w),
                 FlashLoad("taps", "p->filter", q, True, k_h * k_w, c, lane_order=lane_ordered(p))]
    # Two pixels at a time where both are left (the stores after both): multi-channel planes as
    # pairs_pixels allows, one-channel planes as plane_pairs does.
    paired = plane_pairs(p) if single else pairs_pixels(p)
    if paired:
        count, t, xx = imin(o_w - x, 2), Var("t"), Var("xx")
        pairs = floor_div(count, 2)
        pair = (plane_pair(p, plane, x, y) if single else
                depthwise_pair(p, "plane", plane, segment, first, first, end, "seg", "p", "offsets", x, y, Const(0),
                               Const(segment), lanes))
        row_of_outputs = loop("x", 0, o_w, [
            RegAlloc("seg", "int8_t", 2 * segment),  # planes divide the channels: every plane is `segment` wide
            loop("pp", 0, pairs, pair),
            loop("xx", x + 2 * pairs, x + count, depthwise_pixel(p, "plane", plane, segment, first, first, end, lanes,
                                                                 x=xx, dst_base=(xx - x) * segment,
                                                                 registers="taps" if single else None)),
            loop("t", 0, count, [RAMStore("output", ((n * o_h + y) * o_w + x + t) * c + first, width, "seg",
                                          t * segment)]),
        ], step=2, interior=layer_interior(p, 1))
    else:
        row_of_outputs = loop("x", 0, o_w, [
            RegAlloc("seg", "int8_t", segment),
            *depthwise_pixel(p, "plane", plane, segment, first, first, end, lanes, registers="taps" if single else None),
            RAMStore("output", ((n * o_h + y) * o_w + x) * c + first, width, "seg"),
        ], interior=layer_interior(p, 1))
    if single:  # a row of pixels at a time: one strided load (a pointer into the pool where it does not wrap)
        r, i = Var("r"), Var("i")
        copy = loop("r", 0, n_ * h, [
            RAMLoad("px", "input0", r * w * c + first, 1, runs=w, run_stride=c, max_bytes=w),
            loop("i", 0, w, [
                RAMStore("plane", plane + r * w + i, 1, "px", i * c),
                RAMFree("input0", (r * w + i) * c + first, 1),
            ]),
        ])
    else:
        copy = loop("pixel", 0, pixels, [
            RegAlloc("cell", "int8_t", segment),
            RAMLoad("px", "input0", pixel * c + first, width, max_bytes=segment, into="cell"),
            RAMStore("plane", plane + pixel * segment, width, "cell"),
            RAMFree("input0", pixel * c + first, width),
        ])
    body = (
        Broadcast("offsets", "p->input_offset"),
        loop("q", 0, planes, [
            *(load_taps if single else []),
            copy,
            loop("n", 0, n_, [loop("y", 0, o_h, [row_of_outputs], interior=layer_interior(p, 0) if single else None)]),
        ]),
    )
    signature = ("depthwise_in_place", tuple(p.input_shape), tuple(p.output_shape), tuple(p.filter.shape), p.stride,
                 p.dilation, p.padding, segment, lanes) + (("lane-ordered",) if lane_ordered(p) else ())
    return Kernel(name="depthwise_in_place", params_type="vmcu_depthwise_params", signature=signature,
                  tensors={"input0": pixels * c, "output": n_ * o_h * o_w * c}, body=body,
                  workspaces=(Workspace("plane", planes * pixels * segment, pixels * segment),),
                  doc=f"DEPTHWISE_CONV_2D in place {p.input_shape}, {segment}-channel planes")
