"""The planes of an in-place depthwise layer: which form a layer's planes take, their workspace, and
the two forms whose rows are padded.

In place, each channel segment's plane of the input is copied to the workspace before its outputs
are computed (`depthwise.depthwise_in_place`). A padded plane's rows hold the layer's padding
either side of the input's columns (the input's zero point, which the input offset turns into 0),
written with the copy: every window is then whole words of one row, and the pixels at the left and
right edges take the same path as the rest. Two forms do this: one-channel planes of 3-tap rows,
two pixels per word (`padded_one_channel`), and two-channel planes of 5- or 7-tap rows, four pixels
per pass (`column_pairs`). The padding costs a few bytes of workspace per row.
"""
from __future__ import annotations

from .index import Const, Ix, Var
from .ir import Broadcast, DotRow, FlashLoad, InitBias, Kernel, RAMFree, RAMLoad, RAMStore, RegAlloc, Requantize, \
    Workspace, loop
from .requant import requant_form
from .tuning import lane_ordered
from .window import layer_interior, taps


def one_channel_planes_first(p) -> bool:
    """Whether one-channel planes of padded rows (`padded_one_channel`) are an in-place layer's fastest
    form, so that the planner keeps them where wider planes would fit too: on the DSP and scalar
    tunings, 3-tap rows at a stride and dilation of 1 along the row. Such a row of a plane is one word
    for two pixels, two SXTAB16 and four SMLADs for six products, where a four-channel group takes a
    SMLABB or SMLATT per product and a load and an extension per tap and four channels. With the rows
    padded every pixel pairs, the edges and the odd last one too (measured on the Cortex-M4: person
    detection's 6x6 layers 21 % fewer instructions than unpadded one-channel planes, which ran 10-27 %
    fewer than groups, and its 3x3 layer 44 % fewer than groups; 7-tap planes run slower than groups,
    as do Helium's planes, whose rows have no vector form)."""
    return (getattr(p, "tuning", "dsp") != "helium" and p.filter.shape[2] == 3 and p.stride[1] == 1
            and p.dilation[1] == 1)


def column_pair_planes(p) -> bool:
    """Whether an in-place layer's planes are two channels wide with padded rows (`column_pairs`), its
    fastest form: on the DSP and scalar tunings, stride 1 and dilation 1 along the row, kernel rows
    of 5 or 7 taps (an odd width, so that a pixel pair's window is whole words), an even number of
    channels. A word of such a plane is two columns of both channels: SXTAB16 and its rotation give
    each channel a column pair, one SMLAD two taps of a pixel, four SMLADs eight products (measured on the
    Cortex-M4: MCUNet-320KB's 5x5 and 7x7 layers 1.6-1.9 instructions per multiply-accumulate, where
    four-channel groups take a SMLABB or SMLATT per product, 2.2-2.8 with their edges). 3-tap
    rows pair one-channel planes' pixels instead (`one_channel_planes_first`). The padded columns are
    multiplied too: planes narrower than their windows are left to the groups, which skip them (at
    least half of the windows' columns inside the input: MCUNet-VWW1's 7x7 layer over 3x3 planes ran
    twice as long as column pairs)."""
    _, _, k_w, c = p.filter.shape
    w, o_w, left = p.input_shape[2], p.output_shape[2], p.padding[1]
    inside = sum(min(w, x - left + k_w) - max(0, x - left) for x in range(o_w))
    return (getattr(p, "tuning", "dsp") != "helium" and p.depth_multiplier == 1 and getattr(p, "element", 1) == 1
            and p.stride[1] == 1 and p.dilation[1] == 1 and k_w in (5, 7) and c % 2 == 0
            and 2 * inside >= o_w * k_w)


def taps_in_registers(p, segment: int) -> bool:
    """Whether an in-place layer's `segment`-channel planes hold their taps in registers for the
    whole plane, each tap loaded once per plane: one-channel planes, and two-channel planes of column
    pairs (`column_pairs`). Wider planes load a group's taps again at every pixel (DotLanes)."""
    return segment == 1 or segment == 2 and column_pair_planes(p)


def padded_row(p) -> int:
    """The pixels of a row of a padded plane: the input's columns with the layer's padding either side
    (the input's zero point), as many as the last output pixels' windows need (one more column when
    the row's outputs are odd in number: the last pixel is computed with a neighbour, whole words)."""
    o_w, k_w = p.output_shape[2], p.filter.shape[2]
    return o_w + o_w % 2 + k_w - 1


def plane_bytes(p, segment: int) -> int:
    """The workspace of an in-place layer's `segment`-channel plane (padded rows where its form has them)."""
    n, h, w, _ = p.input_shape
    if segment == 2 and column_pair_planes(p):
        return 2 * n * h * padded_row(p)
    if segment == 1 and one_channel_planes_first(p):
        return n * h * padded_row(p)
    return segment * n * h * w


def _padded_copy(p, plane: Ix, first: Ix, channels: int) -> list:
    """The copy of channels [first, first + `channels`) into a plane of padded rows, the padding's
    bytes from the buffer "edge" (`_edge`), and the buffer's allocation (before every plane)."""
    n_, h, w, c = p.input_shape
    row, left = padded_row(p), p.padding[1]
    right = row - left - w
    r, i = Var("r"), Var("i")
    return loop("r", 0, n_ * h, [
        *([RAMStore("plane", plane + r * row * channels, channels * left, "edge")] if left else []),
        RAMLoad("px", "input0", r * w * c + first, channels, runs=w, run_stride=c, max_bytes=channels * w),
        loop("i", 0, w, [
            RAMStore("plane", plane + (r * row + left + i) * channels, channels, "px", i * c),
            RAMFree("input0", (r * w + i) * c + first, channels),
        ]),
        *([RAMStore("plane", plane + (r * row + left + w) * channels, channels * right, "edge")] if right else []),
    ])


def _edge(p, channels: int) -> list:
    """The buffer of the zero point the padded rows' padding is copied from, where they have any."""
    row, left, w = padded_row(p), p.padding[1], p.input_shape[2]
    edge = channels * max(left, row - left - w)
    return [RegAlloc("edge", "int8_t", edge, fill="(int8_t)(-p->input_offset)")] if edge else []


def padded_one_channel(p, plane: Ix, q: Ix) -> tuple[list, list]:
    """An in-place layer's one-channel plane with padded rows (`one_channel_planes_first`): the load of
    channel `q`'s taps and the copy of its plane, and a row of outputs two pixels at a time from it,
    each kernel row one paired DotRow over a word (a 3-tap row of both pixels: vmcu_dot_row2_s8). A
    row's odd last pixel is computed beside the padding's pixel after it, which is not stored."""
    _, h, _, c = p.input_shape
    _, o_h, o_w, _ = p.output_shape
    _, k_h, k_w, _ = p.filter.shape
    row = padded_row(p)
    n, y, x, ky, t = (Var(v) for v in ("n", "y", "x", "ky", "t"))
    rows = taps(y, p.stride[0], p.padding[0], p.dilation[0], k_h, h)
    form = requant_form(p.filter, p.bias, p.requant, -1)

    def outputs(at: Ix, pixels: int) -> list:
        """Output pixels at and at + 1, the first `pixels` of them stored from seg."""
        start = plane + (n * h + rows.origin + ky * p.dilation[0]) * row + at
        return [
            RegAlloc("seg", "int8_t", 2),
            RegAlloc("acc", "int32_t", 1),
            RegAlloc("acc1", "int32_t", 1),
            InitBias("acc", "p->bias", q, 1, ctype=form.bias),
            InitBias("acc1", "p->bias", q, 1, ctype=form.bias),
            loop("ky", rows.lo, rows.hi, [
                RAMLoad("row", "plane", start, k_w + 1, max_bytes=k_w + 1),
                DotRow("acc", "row", 0, "taps", ky * k_w, k_w, "offsets", "p->input_offset", acc1="acc1"),
            ]),
            Requantize("seg", 0, "acc", 1, q, "p", form, dst_stride=Const(1), acc1="acc1"),
            loop("t", 0, pixels, [RAMStore("output", ((n * o_h + y) * o_w + at + t) * c + q, 1, "seg", t)]),
        ]
    alone = Var("xs")  # one trip: its own scope
    row_of_outputs = [loop("x", 0, o_w - o_w % 2, outputs(x, 2), step=2),
                      *([loop("xs", o_w - 1, o_w, outputs(alone, 1))] if o_w % 2 else [])]
    return [RegAlloc("taps", "int32_t", k_h * k_w),
            FlashLoad("taps", "p->filter", q, True, k_h * k_w, c, lane_order=lane_ordered(p)),
            _padded_copy(p, plane, q, 1)], row_of_outputs


def column_pairs(p, plane: Ix, first: Ix) -> tuple[list, list]:
    """An in-place layer's two-channel plane (`column_pair_planes`): the copy of its channels `first`
    and first + 1 into padded rows, and a row of outputs four pixels at a time from it (the row's last
    two and last one on their own), each kernel row one DotRow of two channels over whole words: each
    word of the row serves two pixel pairs, each pair of taps four pixels."""
    n_, h, w, c = p.input_shape
    _, o_h, o_w, _ = p.output_shape
    _, k_h, k_w, _ = p.filter.shape
    row = padded_row(p)
    n, y, x, ky = (Var(v) for v in ("n", "y", "x", "ky"))
    rows = taps(y, p.stride[0], p.padding[0], p.dilation[0], k_h, h)
    form = requant_form(p.filter, p.bias, p.requant, -1)

    def outputs(at: Ix, pixels: int) -> list:
        """Output pixels [at, at + pixels), each kernel row one DotRow over the columns their windows
        span in whole words, stored from seg."""
        start = plane + ((n * h + rows.origin + ky * p.dilation[0]) * row + at) * 2
        columns = k_w + pixels - 1 + (k_w + pixels - 1) % 2
        t = Var("t")
        return [
            RegAlloc("seg", "int8_t", 2 * pixels),
            RegAlloc("acc", "int32_t", 2 * pixels),
            *(InitBias("acc", "p->bias", first, 2, acc_index=2 * k, width=2, ctype=form.bias) for k in range(pixels)),
            loop("ky", rows.lo, rows.hi, [
                RAMLoad("row", "plane", start, 2 * columns, max_bytes=2 * columns),
                DotRow("acc", "row", 0, "taps", ky * k_w, k_w, "offsets", "p->input_offset", channels=2,
                       w_pitch=k_h * k_w, pixels=pixels),
            ]),
            Requantize("seg", 0, "acc", 2, first, "p", form, pixels=pixels, dst_stride=Const(2), acc_stride=Const(2)),
            loop("t", 0, pixels, [RAMStore("output", ((n * o_h + y) * o_w + at + t) * c + first, 2, "seg", t * 2)]),
        ]
    quads, rest = divmod(o_w, 4)
    pair, alone = Var("xp"), Var("xs")  # one trip each: their own scopes
    row_of_outputs = [loop("x", 0, 4 * quads, outputs(x, 4), step=4),
                      *([loop("xp", 4 * quads, 4 * quads + 1, outputs(pair, 2))] if rest >= 2 else []),
                      *([loop("xs", o_w - 1, o_w, outputs(alone, 1))] if rest % 2 else [])]
    return [RegAlloc("taps", "int32_t", 2 * k_h * (k_w + 1)),
            FlashLoad("taps", "p->filter", first, True, k_h * k_w, c, lanes=2, row=k_w, lane_order=lane_ordered(p)),
            _padded_copy(p, plane, first, 2)], row_of_outputs


def in_place_padded(p, channels: int) -> Kernel:
    """`depthwise.depthwise_in_place` in planes of padded rows: `channels` 1 (`padded_one_channel`) or 2
    (`column_pairs`)."""
    n_, h, w, c = p.input_shape
    _, o_h, o_w, _ = p.output_shape
    q = Var("q")
    planes, size = c // channels, plane_bytes(p, channels)
    head, row_of_outputs = (padded_one_channel(p, q * size, q) if channels == 1 else
                            column_pairs(p, q * size, q * 2))
    body = (
        Broadcast("offsets", "p->input_offset"),
        *_edge(p, channels),
        loop("q", 0, planes, [*head, loop("n", 0, n_, [
            loop("y", 0, o_h, row_of_outputs, interior=layer_interior(p, 0))])]),
    )
    form = "padded rows" if channels == 1 else "column pairs"
    doc = "one-channel planes of padded rows" if channels == 1 else "two-channel planes of column pairs"
    signature = ("depthwise_in_place", tuple(p.input_shape), tuple(p.output_shape), tuple(p.filter.shape),
                 p.stride, p.dilation, p.padding, channels, form) + (("lane-ordered",) if lane_ordered(p) else ())
    return Kernel(name="depthwise_in_place", params_type="vmcu_depthwise_params", signature=signature,
                  tensors={"input0": n_ * h * w * c, "output": n_ * o_h * o_w * c}, body=body,
                  workspaces=(Workspace("plane", planes * size, size),),
                  doc=f"DEPTHWISE_CONV_2D in place {p.input_shape}, {doc}")
