"""FULLY_CONNECTED and pointwise CONV_2D: In[M, K] x W[N, K]^T, the paper's GEMM kernel (fig. 4).

Iterations (tile of rows m, output segment q). A tile is one input row, or two (`tile_rows`):
the paper's 2x2 GEMM tile, each widened weight word used for two rows. Each iteration reads the
tile's rows (a pointer into the pool, or a copy where they cross the end of the pool), computes
units [qS, min(qS + S, N)) four at a time (`group_width`: a 4x2 tile) into a segment buffer per
row, and stores the segments. A widened tile whose outputs fit ALL_UNITS_BYTES computes all its
units in one pass instead, then frees and stores segment by segment as before: the same pool
accesses in the same order, one call of the GEMM assembly per tile instead of one per segment.
The rows are freed with their last segment, before it is stored: the store may land on them
(paper eq. 1: gap min(N, K) - 1 for one row; a two-row tile reads row m + 1 before it stores
row m, so its output may need up to K more bytes of distance: the planner takes it only where
its placement allows that, `planner/tiles.py`).
"""
from __future__ import annotations

from .index import Const, Ix, Var, floor_div, imax, imin
from .ir import (Broadcast, Dot, FlashLoad, InitBias, Kernel, Loop, RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize,
                 Widen, loop)
from .requant import GENERAL, RequantForm


WIDEN_BYTES = 2048  # stack for the tile's rows widened to 16 bits; longer rows are read as bytes
ALL_UNITS_BYTES = 1024  # stack for a widened tile's outputs of every segment at once (`gemm`)


def whole_words(n: int) -> int:
    """`n` rounded up to a multiple of 4: the groups of four a widened input or a padded filter
    row is read in (vmcu_widen_s8, vmcu_dot_s16_s8)."""
    return -(-n // 4) * 4


def pair_bytes(bytes_: int) -> int:
    """A buffer of `bytes_` output values written by channel pairs, with one spare byte when the
    count is odd: the last pair then writes one value, but GCC's -Wstringop-overflow cannot prove
    it and rejects the build."""
    return bytes_ + bytes_ % 2


def row_start(channel: Ix, window: int, paired: bool = False) -> Ix:
    """Where output channel `channel`'s filter row starts: `window` weights per row; in the paired
    layout (`paired_weights.py`) a pair's two rows share 2 * window bytes, the odd row 4 bytes in."""
    if not paired:
        return channel * window
    pair = floor_div(channel, 2)
    return pair * (2 * window) + (channel - 2 * pair) * 4


def group_row_start(u: Ix, k: int, units: int, window: int, paired: bool = False, even: bool = False) -> Ix:
    """`row_start` of channel min(u + k, units - 1), the k-th row of a group of channels from u. A group
    from an `even` u (its caller's loop starts even and steps even) over paired rows (`units` even) has
    its rows in whole pairs from u's: u * window + 2 window (k / 2) + 4 (k % 2), at most the last row's
    start. Linear in u, the C computes it without a division."""
    if not (paired and even):
        return row_start(imin(u + k, units - 1), window, paired)
    if units % 2 or window % 4:
        raise ValueError(f"paired rows of {units} channels of {window} weights: not whole pairs of words")
    return imin(u * window + (k // 2) * 2 * window + (k % 2) * 4, (units - 2) * window + 4)


def channel_group(params: str, u, units: int, window: int, pair, pixels: int = 1, form: RequantForm = GENERAL,
                 width: int = 2, weights: str = "int8_t", paired: bool = False, even: bool = False) -> list:
    """Accumulators of the `width` (2 or 4) output channels from u (`pair` of them used) for `pixels`
    inputs (acc[width * p + k]: input p, channel u + k; int64 for a 16x8 layer's `form.wide`), started
    at their bias (a table of `form.bias`), and pointers w0, w1, ... to the channels' `window`-weight filter
    rows of C type `weights`, `paired` or not, from an `even` u or any (`group_row_start`; those past the
    last channel point at it, inside the filter, and their accumulators are never stored)."""
    return [RegAlloc("acc", "int64_t" if form.wide else "int32_t", width * pixels),
            *(FlashLoad(f"w{k}", f"{params}->filter", group_row_start(u, k, units, window, paired, even), ctype=weights)
              for k in range(width)),
            *(InitBias("acc", f"{params}->bias", u, pair, width * p, width if pixels > 1 else 0, form.bias)
              for p in range(pixels))]


def group_width(units: int) -> int:
    """Output channels per weight pass of a GEMM: four (a 4 x 2 tile, the requantization of a pixel's
    four channels one vector on Helium) where there are four, else two."""
    return 4 if units >= 4 else 2


ELEMENT_TYPES = {1: "int8_t", 2: "int16_t"}  # activations by bytes per element


def gemm(rows: int, depth: int, units: int, segment: int, params_type: str, stem: str,
         form: RequantForm = GENERAL, tile_rows: int = 1, x_offset: str = "p->input_offset",
         widen_once: bool = True, element: int = 1, int16_weights: bool = False,
         paired_weights: bool = False) -> Kernel:
    """`params_type` is the C params struct (conv or fully connected); both name the same members;
    `form` what the layer's constants prove about its requantization (`requant.py`); `x_offset` the
    offset its dot products add ("0" where the bias holds it, `offset.py`); `widen_once`: a widened
    tile of rows is loaded and widened once for all the output segments (the `dsp` tuning), not
    per segment (`helium`: where the offset is 0 its dot products read the int8 rows in the pool,
    which the stores of the segments before would overwrite, `lower.helium.HeliumLowering.source_outlives_dots`).

    `element`: bytes per activation, 1 (int8) or 2 (int16, a 16x8 layer: `form.wide` accumulates in
    int64). The same loops for both: pool offsets and lengths in bytes (`segment` too: whole elements),
    indexes into the loaded rows and the segment buffer in elements. An int16 tile is one row, read
    as it is (no widening: the DSP dot product takes int16 pairs straight from the row).

    `int16_weights`: the filter is stored widened to int16 (`widened_weights.py`): every tile is
    widened in order (`natural`) and met two output channels at a time, as the DSP assembly's
    tile of int16 rows reads it.

    `paired_weights`: each channel pair's rows interleaved word by word (`paired_weights.py`); every
    tile is widened (SXTB16's order), a tile of one row too, so that the assembly's paired forms take
    it as they take a pair of rows."""
    if tile_rows not in (1, 2):
        raise ValueError(f"GEMM tiles of 1 or 2 rows, not {tile_rows}")
    if element not in ELEMENT_TYPES or segment % element:
        raise ValueError(f"GEMM of {element}-byte elements in segments of {segment} bytes")
    e, ctype = element, ELEMENT_TYPES[element]
    if e > 1:
        segment, tile_rows = segment // e, 1
    m, q, u, r = Var("m"), Var("q"), Var("u"), Var("r")
    segments = -(-units // segment)
    first, end = q * segment, imin(q * segment + segment, units)
    width = 2 if int16_weights else group_width(units)
    tile = imin(rows - m, tile_rows)  # rows in this tile: tile_rows, fewer in the last
    wide = whole_words(depth)
    every_tile = int16_weights or paired_weights  # widened one-row tiles too
    widened = (tile_rows == 2 or every_tile) and wide * tile_rows * 2 <= WIDEN_BYTES and e == 1
    if every_tile and not widened:
        raise ValueError(f"GEMM of {'int16' if int16_weights else 'paired'} weights over rows of {depth} it does "
                         "not widen")
    x, stride = ("xw", wide) if widened else ("x", depth)
    widen = [RegAlloc("xw", "int16_t", wide * tile_rows),
             loop("r", 0, tile, [Widen("xw", r * wide, "x", r * depth, depth, "offsets", x_offset,
                                       natural=int16_weights)])]
    # A widened tile is a copy: loaded and widened once for all the segments. Unwidened, the Dot reads
    # the pool through the load's pointer, so each segment loads it again (after the stores before it).
    load = [RAMLoad("x", "input0", m * depth * e, depth * tile * e, max_bytes=depth * tile_rows * e, ctype=ctype),
            *(widen if widened else [])]
    # One-row tiles are widened only for int16 or paired weights: per segment, as the int8 row is read per segment,
    # so that the pool sees the same loads (and the planner finds the same plan) either way.
    once = widened and widen_once and tile_rows == 2
    every = once and pair_bytes(units * tile_rows) <= ALL_UNITS_BYTES

    def units_pass(lo, hi, base: Ix, pitch: int) -> Loop:
        """Units [lo, hi) four at a time into `seg`, row r's unit v at r * pitch + v - base."""
        used = imin(hi - u, width)
        return loop("u", lo, hi, [
            *channel_group("p", u, units, depth, used, tile_rows, form, width,
                           "int16_t" if int16_weights else "int8_t", paired_weights, even=segment % 2 == 0),
            Dot("acc", 0, x, 0, tuple(f"w{k}" for k in range(width)), 0, depth, "offsets", x_offset, used, tile,
                stride, paired=paired_weights),
            Requantize("seg", u - base, "acc", used, u, "p", form, pixels=tile, dst_stride=Const(pitch),
                       acc_stride=Const(width)),
        ], step=width)

    def free_and_store(at: Ix) -> list:
        """Segment q: the rows freed with the last one, then stored from row r's `at` in `seg`."""
        return [loop("r", 0, tile, [RAMFree("input0", (m + r) * depth * e, depth * e * imax(q - (segments - 2), 0))]),
                loop("r", 0, tile, [RAMStore("output", ((m + r) * units + first) * e, (end - first) * e, "seg", at)])]

    if every:  # a widened tile's units in one pass (one assembly call), then the segments stored
        tile_body = [*load, RegAlloc("seg", "int8_t", pair_bytes(units * tile_rows)),
                     units_pass(0, units, Const(0), units), loop("q", 0, segments, free_and_store(r * units + first))]
    else:
        tile_body = [*(load if once else []), loop("q", 0, segments, [
            *([] if once else load),
            RegAlloc("seg", ctype, pair_bytes(segment * tile_rows)),
            units_pass(first, end, first, segment),
            *free_and_store(r * segment),
        ])]
    body = (Broadcast("offsets", x_offset), loop("m", 0, rows, tile_body, step=tile_rows))
    shape = f"{rows} x {depth}] x [{depth} x {units}"
    signature = (("gemm", rows, depth, units, segment, tile_rows, once) + ((ctype, form.wide) if e > 1 else ())
                 + (("int16 weights",) if int16_weights else ()) + (("paired weights",) if paired_weights else ()))
    return Kernel(name=stem, params_type=params_type, signature=signature,
                  tensors={"input0": rows * depth * e, "output": rows * units * e}, body=body,
                  doc=f"GEMM [{shape}], {segment * e}-byte segments" + (", 2-row tiles" if tile_rows == 2 else "")
                  + (f", {ctype} activations" if e > 1 else "") + (", int16 weights" if int16_weights else "")
                  + (", paired weights" if paired_weights else ""),
                  element=e)
