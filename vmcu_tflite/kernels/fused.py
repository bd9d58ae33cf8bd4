"""INVERTED_BOTTLENECK: lead conv -> depthwise -> 1x1 project [-> ADD of the block input], fused
(paper section 4.2; `vmcu_tflite/fusion.py` finds the blocks).

Iterations (output row y, pair of pixels x, x + 1; one pixel where C_mid is wide: the pair's
buffers are stack). At the start of each output row, the lead
conv's output rows that the row's depthwise window needs and that are not computed yet go into a
ring in the workspace (a logical tensor of every lead row; row r in slot r mod ring_rows); a
1x1 lead computes them two pixels at a time. The two output pixels' depthwise values go to a
2 x C_mid buffer, their projected channels to a 2 x C_out buffer (two pixels by two channels per
weight pass: the GEMM's 2x2 tile), then each pixel, segment by segment (plus the residual pixel
of the block input), to the pool. Every multiply-accumulate of the unfused layers happens once.
Without a lead conv the depthwise window reads the block input directly.

Taking pixels in pairs only moves reads earlier (pixel x + 1's window before pixel x's stores)
and stores later: no byte is needed longer than with one pixel at a time, so the pairs cost the
pool nothing.
"""
from __future__ import annotations

from .conv import conv_pixel
from .depthwise import depthwise_pixel
from .gemm import WIDEN_BYTES, channel_pair, pair_bytes, whole_words
from .index import Const, Var, imin
from .ir import AddResidual, Broadcast, Dot, Kernel, RAMLoad, RAMStore, RegAlloc, Requantize, Widen, Workspace, loop
from .requant import requant_form
from .window import new_rows


PIXELS = 2  # output pixels per iteration (and lead pixels per unit where the lead is 1x1)
PAIR_BYTES = 512  # stack for a pair's depthwise values: wider blocks (few pixels: the last ones) take one at a time


def _lead_rows(lead, y, dw, mid_w: int, c_mid: int, pair_pixels: bool):
    """Lead conv rows [lo, hi) computed at the start of output row y, each pixel into the ring.

    Row y of the output needs lead rows up to y*s - pad + k - 1 (its depthwise window's last);
    rows up to the previous output row's last are already in the ring."""
    lo, hi = new_rows(y, dw.stride[0], dw.padding[0], dw.filter.shape[1], lead.output_shape[1])
    r, xm, u = Var("r"), Var("xm"), Var("u")
    pixels = imin(mid_w - xm, PIXELS)
    pixel = conv_pixel(lead, Const(0), r, xm, params="p->lead", offsets="lead_offsets",
                       pixels=pixels if pair_pixels else None)
    tile = pixels if pixel.tile > 1 else Const(1)
    pair = imin(c_mid - u, pixel.width)
    requantize = Requantize("midpx", u, "acc", pair, u, "p->lead", pixel.form, pixels=tile, dst_stride=Const(c_mid),
                            acc_stride=Const(2))
    return loop("r", lo, hi, [
        loop("xm", 0, mid_w, [
            RegAlloc("midpx", "int8_t", pair_bytes(c_mid * pixel.tile)),
            *pixel.reads,
            loop("u", 0, c_mid, pixel.unit(u, pair) + [requantize], step=pixel.width),
            RAMStore("ring", (r * mid_w + xm) * c_mid, c_mid * tile, "midpx"),
        ], step=pixel.tile),
    ])


def inverted_bottleneck(params, segment: int) -> Kernel:
    p = params
    dw = p.depthwise
    _, h, w, c_in = p.input_shape
    _, mid_h, mid_w, c_mid = dw.input_shape
    _, o_h, o_w, c_out = p.output_shape
    y, x, q, u, t, xx = Var("y"), Var("x"), Var("q"), Var("u"), Var("t"), Var("xx")
    tile = PIXELS if PIXELS * c_mid <= PAIR_BYTES else 1
    pixels = imin(o_w - x, tile)
    first, end = q * segment, imin(q * segment + segment, c_out)
    pair = imin(c_out - u, 2)
    lead = p.expand
    source = "ring" if lead is not None else "input0"
    form = requant_form(p.project.filter, p.project.bias, p.project.requant, 0)
    wide = whole_words(c_mid)
    widened = tile > 1 and wide * tile * 2 <= WIDEN_BYTES  # the pair's depthwise values, widened once
    widen = [RegAlloc("midw", "int16_t", wide * tile),
             loop("t", 0, pixels, [Widen("midw", t * wide, "mid", t * c_mid, c_mid, "project_offsets",
                                         "p->project->input_offset")])]
    project_unit = [
        *channel_pair("p->project", u, c_out, c_mid, pair, tile, form),
        Dot("acc", 0, "midw" if widened else "mid", 0, ("w0", "w1"), 0, c_mid, "project_offsets",
            "p->project->input_offset", pair, pixels, wide if widened else c_mid),
        Requantize("out", u, "acc", pair, u, "p->project", form, pixels=pixels, dst_stride=Const(c_out), acc_stride=Const(2)),
    ]
    residual = []
    if p.add is not None:
        residual = [RAMLoad("res", "input0", (y * w + x + t) * c_in + first, end - first, max_bytes=segment),
                    AddResidual("out", t * c_out + first, "res", 0, end - first, "p->add", p.residual_first)]
    depthwise = depthwise_pixel(dw, source, 0, c_mid, 0, 0, c_mid, 4, dst="mid", params="p->depthwise",
                                offsets="dw_offsets", x=xx, dst_base=(xx - x) * c_mid)
    row_body = [loop("x", 0, o_w, [
        RegAlloc("mid", "int8_t", tile * c_mid),
        loop("xx", x, x + pixels, [loop("n", 0, 1, depthwise)]),
        *(widen if widened else []),
        RegAlloc("out", "int8_t", pair_bytes(tile * c_out)),
        loop("u", 0, c_out, project_unit, step=2),
        loop("t", 0, pixels, [
            loop("q", 0, -(-c_out // segment), [
                *residual,
                RAMStore("output", ((y * o_w + x + t) * c_out + first), end - first, "out", t * c_out + first),
            ]),
        ]),
    ], step=tile)]
    offsets = [Broadcast("dw_offsets", "p->depthwise->input_offset"),
               Broadcast("project_offsets", "p->project->input_offset")]
    workspaces = ()
    if lead is not None:  # its rows go to a ring in the workspace, computed at the start of each output row
        row_body.insert(0, _lead_rows(lead, y, dw, mid_w, c_mid, tile > 1))
        offsets.insert(0, Broadcast("lead_offsets", "p->lead->input_offset"))
        workspaces = (Workspace("ring", mid_h * mid_w * c_mid, p.ring_rows * mid_w * c_mid),)
    signature = ("inverted_bottleneck", tuple(p.input_shape), tuple(p.output_shape),
                 None if lead is None else (tuple(lead.filter.shape), lead.stride, lead.padding),
                 tuple(dw.filter.shape), dw.stride, dw.padding, p.add is not None, p.residual_first, segment)
    return Kernel(name="inverted_bottleneck", params_type="vmcu_inverted_bottleneck_params", signature=signature,
                  tensors={"input0": h * w * c_in, "output": o_h * o_w * c_out},
                  body=(*offsets, loop("y", 0, o_h, row_body)), workspaces=workspaces,
                  doc=f"INVERTED_BOTTLENECK {p.input_shape} -> {p.output_shape}, {segment}-byte segments")
