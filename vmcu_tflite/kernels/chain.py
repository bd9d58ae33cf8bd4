"""LAYER_CHAIN: consecutive convolution layers fused, rows made on demand into rings
(`vmcu_tflite/chain.py` groups the layers into stages and sizes the rings).

Iterations: output row y of the last stage. Before it, the rows of the previous stage that its
window needs and that are not made yet are made into that stage's ring (row r in slot r mod
ring rows), and before each of those, the rows of the stage before it that row needs, and so on
down to the step's input: every row of every layer is computed once, when first needed. A
stage's pixel is its head layer's pixel (a depthwise pixel, a convolution's window read as
`conv_pixel` reads it, or, for an NCHW TRANSPOSE, one byte of each channel plane), then each 1x1
layer of the stage applied to that pixel in registers. Where the chain recomputes (the paper's
section 5.2), one stage keeps no ring (the first, or an expansion's 1x1 layers in a chain that
pulls its input: `LayerChainParams.recomputed`): for each tile of the next stage's depthwise
pixels (up to eight, `LayerChainParams.stage_tile`), that stage's pixels of their windows are made
again into one register window, from the step's input or the ring before it.
Where the ring the last stage reads is a line buffer (`LayerChainParams.line_ring`), the last of
an output row's new rows of it is made inside the output loop instead, just ahead of each tile
of output pixels: the columns that tile's windows reach first, in whole tiles of the ring's
stage, the rest of the row with the last tile.
The last stage's pixels go to the output segment by segment (each segment added to the input's
at its place first where a residual ADD ends the chain), or, where a global average pool
ends the chain, into one int32 sum per channel whose means are stored at the end.
A chain of 16x8 layers is the same description over int16 values (`LayerChainParams.element`): its
pool offsets and ring offsets in bytes, its buffers' indexes in elements, each layer's pixels as its
own step computes them (`conv_pixel`'s int16 gathered window, `depthwise_pixel`'s int16 rows, and a
1x1 layer's int16 dot products four channels at a time, `_pointwise_pixels16`), int32 pool sums
of int16 values and int16 means. The input is
freed as the windows move past it (the interpreter's frontier), so the output may land on
consumed input.
"""
from __future__ import annotations

from typing import Callable

from ..chain import PAIR_BYTES, PIXELS, is_depthwise, is_transpose
from .conv import conv_pixel, filter_pitch, wide_filter, widens_pixels
from .depthwise import depthwise_pair, depthwise_pixel, pairs_pixels, triples_pixels
from .gemm import ELEMENT_TYPES, channel_group, group_width, pair_bytes, whole_words
from .index import Const, Ix, Var, floor_div, imax, imin
from .ir import (Accumulate, AddResidual, Average, Broadcast, Dot, Kernel, Loop, PullRow, PushRow, RAMLoad, RAMStore,
                 RegAlloc, Requantize, Widen, Workspace, loop)
from .lower.dsp import UNROLLED_ROWS
from .offset import dot_offset, kernel_bias
from .requant import requant_form, requant_form16
from .tuning import depthwise_lanes, tile_channels
from .window import conv_way, layer_interior, new_rows, taps




def layer_param(params, j: int) -> str:
    """The C expression of layer j's params in a vmcu_layer_chain_params `p`."""
    table = "depthwise" if is_depthwise(params.layers[j]) else "conv"
    return f"p->{table}[{j}]"


def _head_pixels(params, j: int, source: str, row: Ix, col: Ix, count: Ix, tile: int, into=None,
                 window: str | None = None, window_cols: int | None = None, window_x: Ix | int = 0) -> tuple[list, str]:
    """Layer j's output pixels (row, col + t) for t < count (at most `tile`), read from `source`,
    into the buffer it returns (pixel t at t * C_out), or into (buffer, base) `into`. A 1x1 or
    gathered convolution computes the pixels together (each weight pair serves both); a depthwise
    or other convolution one by one; a depthwise from the register `window` where one is given
    (`window_cols` pixels wide, the pixel's window from column `window_x`: `depthwise_pixel`)."""
    layer, at, buf = params.layers[j], layer_param(params, j), f"px{j}"
    c_out, act = layer.output_shape[3], ELEMENT_TYPES[params.element]
    xx = Var(f"xx{j}")
    buf, base = into if into else (buf, Const(0))
    if is_transpose(layer):  # pixel (row, xx) of NHWC: one byte of each NCHW channel plane
        _, channels, h, w = layer.input_shape
        t = Var(f"t{j}")
        return [*_own(into, buf, tile * c_out),
                loop(f"t{j}", 0, count, [
                    RAMLoad("planes", source, row * w + col + t, 1, runs=channels, run_stride=h * w, max_bytes=channels,
                            into=buf, into_index=t * c_out)])], buf
    if is_depthwise(layer):
        # a 16x8 layer's int16 pixels four channels at a time on every core, one pixel at a time
        lanes = (depthwise_lanes(layer) if params.element == 1 else 4) if layer.depth_multiplier == 1 else 1
        if tile == 3 and count == Const(3) and window is None and triples_pixels(layer) and params.element == 1:
            return [*_own(into, buf, tile * c_out, act), loop("n", 0, 1, depthwise_pair(
                layer, source, 0, layer.input_shape[3], 0, 0, c_out, dst=buf, params=at, offsets=f"off{j}", x=col,
                y=row, dst_base=base, dst_step=Const(c_out), lanes_max=lanes, pixels=3))], buf
        # a tile's first two pixels (of three: a row's last tile, `_ends_in_three`)
        paired = tile in (PIXELS, 3) and window is None and pairs_pixels(layer) and params.element == 1
        pairs = floor_div(count, 2) if paired else Const(0)
        pair = [loop(f"pp{j}", 0, pairs, [loop("n", 0, 1, depthwise_pair(
            layer, source, 0, layer.input_shape[3], 0, 0, c_out, dst=buf, params=at, offsets=f"off{j}", x=col, y=row,
            dst_base=base, dst_step=Const(c_out), lanes_max=lanes))])] if paired else []
        return [*_own(into, buf, tile * c_out, act), *pair,
                loop(f"xx{j}", col + 2 * pairs, col + count, [loop("n", 0, 1, depthwise_pixel(
                    layer, source, 0, layer.input_shape[3], 0, 0, c_out, lanes, dst=buf, params=at, offsets=f"off{j}",
                    x=xx, y=row, dst_base=base + (xx - col) * c_out, window=window, window_cols=window_cols,
                    window_x=window_x))])], buf
    together = conv_pixel(layer, Const(0), row, col, params=at, offsets=f"off{j}", source=source,
                          pixels=count if tile > 1 else None, tile=3 if tile == 3 else 2)
    u = Var(f"u{j}")
    if together.tile == tile:
        pair = imin(c_out - u, together.width)
        return [*_own(into, buf, pair_bytes(tile * c_out), act), *together.reads,
                loop(f"u{j}", 0, c_out, together.unit(u, pair) + [
                    Requantize(buf, base + u, "acc", pair, u, at, together.form, pixels=count if tile > 1 else Const(1),
                               dst_stride=Const(c_out), acc_stride=Const(together.weight_rows))], step=together.width)], buf
    one = conv_pixel(layer, Const(0), row, xx, params=at, offsets=f"off{j}", source=source)
    pair = imin(c_out - u, one.width)
    return [*_own(into, buf, pair_bytes(tile * c_out), act),
            loop(f"xx{j}", col, col + count, [*one.reads, loop(f"u{j}", 0, c_out, one.unit(u, pair) + [
                Requantize(buf, base + (xx - col) * c_out + u, "acc", pair, u, at, one.form)], step=one.width)])], buf


def _own(into, buf: str, size: int, ctype: str = "int8_t") -> list:
    """The RegAlloc of a layer's own output buffer (of `ctype` elements); none where it writes `into` another."""
    return [RegAlloc(buf, ctype, size)] if into is None else []


def _pointwise_pixels(params, j: int, src: str, count: Ix, tile: int, into=None,
                      first: Ix = Const(0)) -> tuple[list, str]:
    """1x1 layer j applied to the `count` pixels in buffer `src` from pixel `first` on: two output
    channels by up to two pixels per weight pass (the GEMM's 2x2 tile), the pixels widened to 16
    bits once; into its own buffer, or into (buffer, base) `into`."""
    layer, at, buf = params.layers[j], layer_param(params, j), f"px{j}"
    buf, base = into if into else (buf, Const(0))
    c_in, c_out = layer.input_shape[3], layer.output_shape[3]
    if params.element > 1:
        return _pointwise_pixels16(params, j, src, count, tile, buf, base, into)
    form = requant_form(layer.filter, layer.bias, layer.requant, 0, kernel_bias(layer))
    x_offset = dot_offset(layer, at)
    u, t = Var(f"u{j}"), Var(f"t{j}")
    width = tile_channels(layer)
    pair = imin(c_out - u, width)
    wide = whole_words(c_in)
    int16 = wide_filter(layer)  # int16 rows (`widened_weights.py`): pixels widened in order, even one alone
    paired = getattr(layer, "paired_weights", False)  # rows in pairs (`paired_weights.py`): one pixel widened too
    widened = widens_pixels(layer, wide, tile)
    if (int16 or paired) and not widened:
        raise ValueError(f"chain layer {j}: {'int16' if int16 else 'paired'} weights over pixels of {c_in} it does "
                         "not widen")
    x, stride = (f"{src}w", wide) if widened else (src, c_in)
    widen = [RegAlloc(f"{src}w", "int16_t", wide * tile),
             loop(f"t{j}", 0, count, [Widen(f"{src}w", t * wide, src, (first + t) * c_in, c_in, f"off{j}", x_offset,
                                            natural=int16)])]
    return [*(widen if widened else []), *_own(into, buf, pair_bytes(tile * c_out)),
            loop(f"u{j}", 0, c_out, [
                *channel_group(at, u, c_out, c_in, pair, tile, form, width, "int16_t" if int16 else "int8_t", paired,
                               even=True),  # u from 0 by `width` (2 or 4)
                Dot("acc", 0, x, 0 if widened else first * c_in, tuple(f"w{k}" for k in range(width)), 0, c_in,
                    f"off{j}", x_offset, pair, count, stride, paired=paired),
                Requantize(buf, base + u, "acc", pair, u, at, form, pixels=count, dst_stride=Const(c_out),
                           acc_stride=Const(width)),
            ], step=width)], buf


def _pointwise_pixels16(params, j: int, src: str, count: Ix, tile: int, buf: str, base: Ix, into) -> tuple[list, str]:
    """A 16x8 1x1 layer j over the `count` int16 pixels in buffer `src`, as its GEMM step computes
    them: the int16 values as they are (no offset: int16 zero points are 0), four output channels
    per weight pass (two where there are fewer), both pixels of the tile per pass, int64 sums or
    the int32 ones its bias allows, and its 64-bit requantization to int16."""
    layer, at = params.layers[j], layer_param(params, j)
    c_in, c_out = layer.input_shape[3], layer.output_shape[3]
    form = requant_form16(layer.bias, layer.wide)
    u, width = Var(f"u{j}"), group_width(c_out)
    pair = imin(c_out - u, width)
    return [*_own(into, buf, pair_bytes(tile * c_out), "int16_t"),
            loop(f"u{j}", 0, c_out, [
                *channel_group(at, u, c_out, c_in, pair, tile, form, width),
                Dot("acc", 0, src, 0, tuple(f"w{k}" for k in range(width)), 0, c_in, f"off{j}", "0", pair, count,
                    c_in),
                Requantize(buf, base + u, "acc", pair, u, at, form, pixels=count, dst_stride=Const(c_out),
                           acc_stride=Const(width)),
            ], step=width)], buf


def _pointwise_pairs(params, j: int, src: str, count: Ix, tile: int) -> tuple[list, str]:
    """1x1 layer j applied to the `count` pixels (up to `tile`) in buffer `src`, a pair at a time
    (the 2x2 tile), into its own buffer."""
    if tile <= PIXELS:
        return _pointwise_pixels(params, j, src, count, tile)
    buf, c_out, pq = f"px{j}", params.layers[j].output_shape[3], Var(f"pq{j}")
    pair, _ = _pointwise_pixels(params, j, src, imin(count - pq, PIXELS), PIXELS, into=(buf, pq * c_out), first=pq)
    return [RegAlloc(buf, "int8_t", pair_bytes(tile * c_out)), loop(f"pq{j}", 0, count, pair, step=PIXELS)], buf


def _has_ring(params, i: int) -> bool:
    """Stage i keeps its rows in a ring (not the last stage; not a recomputed stage)."""
    return 0 <= i < len(params.stages) - 1 and i != params.recomputed


def _interior(params, i: int) -> tuple[int, int] | None:
    """The columns of stage i whose head's window lies inside its input (the C drops the clamps)."""
    head = params.layers[params.stages[i].first]
    return None if is_transpose(head) else layer_interior(head, 1)


def _stage_pixels(params, i: int, row: Ix, col: Ix, count: Ix, into=None, tile: int | None = None) -> tuple[list, str]:
    """Stage i's output pixels (row, col + t), t < count, into the buffer it returns (or into
    (buffer, base) `into`, pixel t at base + t * C), `tile` at a time at most (default: the
    stage's, one pixel `into` another buffer)."""
    stage = params.stages[i]
    tile = tile or (1 if into else params.stage_tile(i))
    last = stage.end - 1
    if params.recomputed is not None and i == params.recomputed + 1:
        return _recomputed_pixels(params, i, row, col, count, tile)
    statements, buf = _head_pixels(params, stage.first, "input0" if i == 0 else f"ring{i - 1}", row, col, count,
                                   tile, into if last == stage.first else None)
    for j in range(stage.first + 1, stage.end):
        more, buf = _pointwise_pixels(params, j, buf, count, tile, into if j == last else None)
        statements += more
    return statements, buf


def _recomputed_pixels(params, i: int, row: Ix, col: Ix, count: Ix, tile: int) -> tuple[list, str]:
    """Stage i's pixels where stage i - 1 keeps no ring (paper section 5.2): per tile of stage i's
    output pixels, stage i - 1's pixels of their depthwise windows are computed again into one
    register window (the tile's windows overlap: eight pixels at stride 1 take 3 x 10 pixels, not
    8 x 3 x 3), taps outside the input left at the zero point (they add 0), then the depthwise
    reads each pixel's part of the window and the stage's 1x1 layers take its pixels in pairs."""
    stage, first = params.stages[i], params.stages[i - 1]
    head = params.layers[stage.first]
    _, h, w, c = params.stage_output(first)
    _, k_h, k_w, _ = head.filter.shape
    s_w = head.stride[1]
    rx, wy, wx = Var("rx"), Var("wy"), Var("wx")
    span = k_w + (tile - 1) * s_w  # the window's columns: the tile's pixels' windows side by side
    rows = taps(row, head.stride[0], head.padding[0], 1, k_h, h)
    origin = taps(col, s_w, head.padding[1], 1, k_w, w).origin  # input column of the window's column 0
    lo, hi = imax(-origin, 0), imin(k_w + (count - 1) * s_w, w - origin)  # its columns inside the input
    pair = params.stage_tile(i - 1)  # the window's pixels two at a time where the stage pairs its pixels
    made, _ = _stage_pixels(params, i - 1, rows.origin + wy, origin + wx, imin(hi - wx, pair),
                            into=("win", (wy * span + wx) * c), tile=pair)
    buf, c_out = f"px{stage.first}", head.output_shape[3]
    zero = f"(int8_t)(-{layer_param(params, stage.first)}->input_offset)"
    window = [RegAlloc("win", "int8_t", k_h * span * c, fill=zero),
              loop("wy", rows.lo, rows.hi, [loop("wx", lo, hi, made, step=pair)])]
    pixel, _ = _head_pixels(params, stage.first, "", row, rx, Const(1), 1, into=(buf, (rx - col) * c_out),
                            window="win", window_cols=span, window_x=(rx - col) * s_w)
    statements = [RegAlloc(buf, "int8_t", tile * c_out), *window, loop("rx", col, col + count, pixel)]
    for j in range(stage.first + 1, stage.end):
        more, buf = _pointwise_pairs(params, j, buf, count, tile)
        statements += more
    return statements, buf


def _ends_in_three(params, i: int) -> bool:
    """Whether stage i's rows (of an odd width, in pairs) end in a tile of three pixels instead of a
    pair and a pixel alone: where each of its layers that reads whole windows takes the three in one
    pass (`_takes_threes`); a depthwise head makes the three as a pair and a pixel alone, as before.
    Not where the rows go three pixels at a time throughout (`_in_threes`)."""
    _, _, w, _ = params.stage_output(params.stages[i])
    return w % 2 == 1 and w >= 3 and _takes_threes(params, i) and not _in_threes(params, i)


def _in_threes(params, i: int) -> bool:
    """Whether stage i's rows go three pixels at a time, the row's last tile the one or two left:
    where its depthwise head makes three in one pass (`triples_pixels`: each column's word serves
    the three), its 1x1 layers take three in one pass (`_takes_threes`), and three pixels of its
    widest layer fit PAIR_BYTES. Not a stage of a 1x1 head: over the int16 rows most chains' 1x1
    layers get (`widened_weights.py`), a pair's 2x2 tile costs what a third of three pixels does."""
    stage = params.stages[i]
    _, _, w, _ = params.stage_output(stage)
    head = params.layers[stage.first]
    widest = max(params.layers[j].output_shape[3] for j in range(stage.first, stage.end))
    return (w >= 3 and 3 * widest * params.element <= PAIR_BYTES and _takes_threes(params, i)
            and is_depthwise(head) and triples_pixels(head))


def _takes_threes(params, i: int) -> bool:
    """Whether each of stage i's layers that reads whole windows (a 1x1 or gathered head, the 1x1
    layers after it) takes a tile of three pixels in one pass of the DSP assembly
    (vmcu_gemm3x2[w]_k<len>_...: each weight word loaded and widened once for the three pixels, 21
    instructions per four inputs where a pair and a pixel alone take 27; 17 against 18 over int16
    rows): the `dsp` tuning, rows of a length the assembly unrolls, a depthwise head that pairs its
    pixels. Not around a line ring or a recomputed stage, whose tiles the other stages' windows follow."""
    stage = params.stages[i]
    head, pointwise = params.layers[stage.first], params.layers[stage.first + 1:stage.end]
    gemms = [(layer, layer.input_shape[3]) for layer in pointwise]
    if is_depthwise(head):
        if not pairs_pixels(head):
            return False
    elif is_transpose(head) or conv_way(head) not in ("pixel", "gather"):
        return False
    else:
        gemms.append((head, filter_pitch(head)))
    recomputed = params.recomputed is not None and i in (params.recomputed, params.recomputed + 1)
    return (params.stage_tile(i) == PIXELS and params.element == 1
            and params.line_ring is None and not recomputed and len(gemms) > 0
            and all(getattr(layer, "tuning", "dsp") == "dsp" and length in UNROLLED_ROWS for layer, length in gemms))


def _pull_rows(params, needed_by: Ix) -> list:
    """Where the chain pulls its input: the input rows that row `needed_by` of the first stage
    is the first to need, from the application into the input ring (row r in slot r mod rows)."""
    if params.pulls_input is None:
        return []
    head = params.layers[0]
    _, h, w, c = params.input_shape
    lo, hi = new_rows(needed_by, head.stride[0], head.padding[0], head.filter.shape[1], h)
    return [_pull_loop(params, lo, hi)]


def _pull_loop(params, lo: Ix, hi: Ix):
    _, _, w, c = params.input_shape
    r = Var("ri")
    return loop("ri", lo, hi, [PullRow("input0", r * (w * c), w * c, "", row=r, input=params.pulls_input)])


def _pull_rest(params) -> list:
    """The input rows below the last window (no output needs them): pulled all the same, since
    the application hands over every row of its frame, in order."""
    if params.pulls_input is None:
        return []
    head, first = params.layers[0], params.stages[0]
    _, h, _, _ = params.input_shape
    rows = params.stage_output(first)[1]
    needed = min(h, (rows - 1) * head.stride[0] - head.padding[0] + head.filter.shape[1])
    return [_pull_loop(params, needed, h)] if needed < h else []


def _row_needs(params, i: int, r: Ix) -> list:
    """What row r of stage i reads made first: the rows of stage i - 1 it is the first to need
    (of stage i - 2 where stage i - 1 is recomputed from that ring, row for row), or the input
    rows it is the first to need where the chain pulls them."""
    for before in (i - 1, i - 2 if i - 1 == params.recomputed else -1):
        if _has_ring(params, before):
            return [_make_rows(params, before, r)]
    return _pull_rows(params, r) if i == 0 else []


def _row_pixels(params, i: int, r: Ix, lo: Ix | int = 0, hi: Ix | int | None = None) -> list[Loop]:
    """Pixels [lo, hi) (default: the whole row) of row r of stage i into ring i, a tile at a
    time. A whole row's loop carries the stage's interior hint (the C folds the clamps away
    there). Columns that vary (a line ring's few at a time) go as three loops: those before the
    stage's interior, those in it (clamp-free) and those after it, in whole tiles: `lo` and
    `hi` are multiples of the tile (or the row's end), and so are the interior's whole-tile
    bounds, so the C has no partial tile to branch on (the row's last, where the tile does not
    divide the row, goes pixel by pixel)."""
    _, _, w, c = params.stage_output(params.stages[i])
    x, tile, e = Var(f"x{i}"), params.stage_tile(i), params.element
    interior = _interior(params, i)

    def pixels(first: Ix, end: Ix, size: int, count: Ix, hint=None) -> Loop:
        made, buf = _stage_pixels(params, i, r, x, count, tile=size)
        return loop(f"x{i}", first, end, [*made, RAMStore(f"ring{i}", (r * w + x) * c * e, count * c * e, buf)],
                    step=size, interior=hint)
    if hi is None and _in_threes(params, i):  # the rest as a pair, or a pixel alone
        rest = w % 3
        return [pixels(Const(lo), Const(w - rest), 3, Const(3), interior),
                *([pixels(Const(w - rest), Const(w), PIXELS, Const(rest))] if rest else [])]
    if hi is None and _ends_in_three(params, i):
        return [pixels(Const(lo), Const(w - 3), tile, Const(tile), interior),
                pixels(Const(w - 3), Const(w), 3, Const(3))]
    if hi is None:
        return [pixels(Const(lo), Const(w), tile, imin(w - x, tile), interior)]
    a, b = (-(-interior[0] // tile) * tile, interior[1] // tile * tile) if interior else (0, 0)
    if a >= b:
        return [pixels(lo, hi, tile, imin(hi - x, tile))]
    right = (tile, Const(tile)) if w % tile == 0 else (1, Const(1))
    return [pixels(lo, imin(hi, a), tile, Const(tile)), pixels(imax(lo, a), imin(hi, b), tile, Const(tile)),
            pixels(imax(lo, b), hi, *right)]


def _make_rows(params, i: int, needed_by: Ix):
    """The rows of stage i that row `needed_by` of the stage reading ring i is the first to need
    (of stage i + 2 where stage i + 1 is recomputed: its 1x1 layers map rows one to one)."""
    head = params.layers[params.stages[i + 2 if i + 1 == params.recomputed else i + 1].first]
    _, h, w, _ = params.stage_output(params.stages[i])
    r = Var(f"r{i}")
    lo, hi = new_rows(needed_by, head.stride[0], head.padding[0], head.filter.shape[1], h)
    return loop(f"r{i}", lo, hi, [*_row_needs(params, i, r), *_row_pixels(params, i, r)])


def _line_rows(params, y: Ix) -> tuple[list, Callable[[Ix], list]]:
    """Output row y's new rows of the line ring (`LayerChainParams.line_ring`): the statements
    before the output pixels (each new row's own needs; the pixels of all but the last), and
    those that the output loop runs before its tile at column x (the last row's pixels that
    tile's windows reach first; the rest of the row with the last tile). The interpreter runs a
    kernel statement by statement, so a row's pixels are made in the loop that made its needs."""
    i = params.line_ring
    head = params.layers[params.stages[i + 1].first]
    _, h, w, _ = params.stage_output(params.stages[i])
    _, k_h, k_w, _ = head.filter.shape
    cols, outputs = params.stage_tile(i + 1), params.layers[-1].output_shape[2]
    tile = params.stage_tile(i)
    lo, hi = new_rows(y, head.stride[0], head.padding[0], k_h, h)
    last = imax(lo, hi - 1)  # [last, hi): the last new row, or none
    final = (outputs - 1) // cols * cols  # the output loop's last tile
    r = Var(f"r{i}")

    def made(x: Ix) -> Ix:
        """Columns made once the tile at x has run: its windows' reach in whole tiles; all of
        them with the last tile."""
        reach = (x + cols - 1) * head.stride[1] - head.padding[1] + k_w
        return imax(imin(w, floor_div(reach + tile - 1, tile) * tile), imin(w, (x - final + cols) * w))

    def ahead(x: Ix) -> list:
        start = imax(0, imin(x * w, made(x - cols)))  # 0 for the first tile
        return [loop(f"r{i}", last, hi, _row_pixels(params, i, r, start, made(x)))]
    # each row's needs, and the whole row where it is not the last (a loop of one trip or none)
    but_last = loop(f"g{i}", r, imin(r + 1, last), _row_pixels(params, i, r))
    return [loop(f"r{i}", lo, hi, [*_row_needs(params, i, r), but_last])], ahead


def layer_chain(params, segment: int) -> Kernel:
    p = params
    last = len(p.stages) - 1
    _, h, w, c_in = p.input_shape
    _, o_h, o_w, c_out = p.output_shape
    e, act = p.element, ELEMENT_TYPES[p.element]  # a 16x8 chain: pool offsets in bytes, buffer indexes in elements
    if segment % e:
        raise ValueError(f"LAYER_CHAIN of {e}-byte elements in segments of {segment} bytes")
    segment //= e
    workspaces, at = [], 0
    if p.pulls_input is not None:
        workspaces.append(Workspace("input0", h * w * c_in, p.input_ring_bytes, 0))
        at = p.input_ring_bytes
    for i, stage in enumerate(p.stages[:-1]):
        if _has_ring(p, i):
            _, s_h, s_w, s_c = p.stage_output(stage)
            workspaces.append(Workspace(f"ring{i}", s_h * s_w * s_c * e, p.ring_bytes(stage), at,
                                        wraps=i == p.line_ring))
            at += p.ring_bytes(stage)
    if p.pushes_output is not None:  # one output row, handed over once made (unwrapped: the application reads it)
        workspaces.append(Workspace("output", o_h * o_w * c_out, p.output_ring_bytes, at))
    y, x, q, t = Var("y"), Var("x"), Var("q"), Var("t")
    _, rows, cols, _ = p.layers[-1].output_shape
    first, end = q * segment, imin(q * segment + segment, c_out)
    segments = -(-c_out // segment)
    if p.line_ring is not None:  # the last new row made pixel by pixel just ahead of the windows
        row_body, made_ahead = _line_rows(p, y)
        ahead = made_ahead(x)
    else:
        row_body = _row_needs(p, last, y)
        ahead = []

    def columns(lo: int, hi: int, tile: int, count: Ix, hint=None) -> Loop:
        """The last stage's output pixels [lo, hi) of row y, `tile` at a time, `count` in each tile."""
        pixels, buf = _stage_pixels(p, last, y, x, count, tile=tile)
        if p.pool is not None:  # summed into the pool's accumulators
            summed = loop("t", 0, count, [Accumulate("sums", buf, c_out, t * c_out)])
            return loop("x", lo, hi, [*ahead, *pixels, summed], step=tile, interior=hint)
        residual = [] if p.add is None else [  # the input pixel at the same place, added segment by segment
            RAMLoad("res", "input0", (y * w + x + t) * c_in + first, end - first, max_bytes=segment),
            AddResidual(buf, t * c_out + first, "res", 0, end - first, "p->add", p.residual_first)]
        return loop("x", lo, hi, [*ahead, *pixels, loop("t", 0, count, [loop("q", 0, segments, [
            *residual, RAMStore("output", ((y * o_w + x + t) * c_out + first) * e, (end - first) * e, buf,
                                t * c_out + first)])])], step=tile, interior=hint)

    tile = p.stage_tile(last)
    if _in_threes(p, last):  # the rest as a pair, or a pixel alone
        rest = cols % 3
        row_body += [columns(0, cols - rest, 3, Const(3), _interior(p, last)),
                     *([columns(cols - rest, cols, PIXELS, Const(rest))] if rest else [])]
    elif _ends_in_three(p, last):
        row_body += [columns(0, cols - 3, tile, Const(tile), _interior(p, last)), columns(cols - 3, cols, 3, Const(3))]
    else:
        row_body.append(columns(0, cols, tile, imin(cols - x, tile), _interior(p, last)))
    if p.pool is None:  # each pixel of the last stage to the output, segment by segment
        if p.pushes_output is not None:  # the row is final: to the application, and its bytes free again
            row_body.append(PushRow("row", "output", y * o_w * c_out, o_w * c_out, row=y, output=p.pushes_output))
        body = [loop("y", 0, rows, row_body), *_pull_rest(p)]
    else:  # only the means reach the pool
        body = [RegAlloc("sums", "int32_t", c_out, fill="0"), loop("y", 0, rows, row_body), *_pull_rest(p),
                RegAlloc("means", act, c_out),
                Average("means", "sums", c_out, rows * cols, p.pool.act_min, p.pool.act_max),
                loop("q", 0, segments, [RAMStore("output", first * e, (end - first) * e, "means", first)])]
    offsets = [Broadcast(f"off{j}", f"{layer_param(p, j)}->input_offset" if is_depthwise(layer)
                         else dot_offset(layer, layer_param(p, j))) for j, layer in enumerate(p.layers)
               if not is_transpose(layer)]
    pool = None if p.pool is None else (p.pool.act_min, p.pool.act_max)
    add = (None if p.add is None else p.residual_first, p.recompute, p.pulls_input) + (
        () if p.line_ring is None else (p.line_ring_pixels(),)) + (() if p.pushes_output is None else
                                                                   ("push", p.pushes_output))
    signature = ("layer_chain", tuple((type(layer).__name__, tuple(layer.input_shape)) + (
        () if is_transpose(layer) else (tuple(layer.filter.shape), layer.stride, layer.padding, layer.tuning,
                                        getattr(layer, "int16_weights", False),
                                        getattr(layer, "paired_weights", False)))
        for layer in p.layers),
        pool, add, segment) + ((act,) if e > 1 else ())
    kinds = "-".join(["nchw" if is_transpose(layer) else "dw" if is_depthwise(layer) else f"conv{layer.filter.shape[1]}"
                      for layer in p.layers]
                     + ([] if p.pool is None else ["mean"]) + ([] if p.add is None else ["add"]))
    kinds = (kinds if p.pulls_input is None else f"pull-{kinds}") + ("" if p.pushes_output is None else "-push")
    return Kernel(name="layer_chain" if e == 1 else "layer_chain_s16", params_type="vmcu_layer_chain_params",
                  signature=signature, tensors=({} if p.pulls_input is not None else {"input0": h * w * c_in * e})
                  | ({} if p.pushes_output is not None else {"output": o_h * o_w * c_out * e}),
                  body=(*offsets, *body), workspaces=tuple(workspaces),
                  doc=f"LAYER_CHAIN {kinds} {p.input_shape} -> {p.output_shape}, {segment * e}-byte segments"
                  + (f", {act} activations" if e > 1 else ""), element=e)
