"""INVERTED_BOTTLENECK: lead conv -> depthwise -> 1x1 project [-> ADD of the block input], fused
(paper section 4.2; `vmcu_tflite/fusion.py` finds the blocks).

Iterations (output row y, pixel x, output segment q). At the start of each output row, the lead
conv's output rows that the row's depthwise window needs and that are not computed yet go into a
ring in the workspace (a logical tensor of every lead row; row r in slot r mod ring_rows). Each
output pixel's depthwise values go to a C_mid buffer, its projected channels, segment by segment,
to a segment buffer (plus the residual pixel of the block input), then to the pool. Every
multiply-accumulate of the unfused layers happens once. Without a lead conv the depthwise window
reads the block input directly.
"""
from __future__ import annotations

from .conv import conv_pixel
from .depthwise import depthwise_pixel
from .gemm import channel_pair
from .index import Const, Var, imax, imin
from .ir import AddResidual, Broadcast, Dot, Kernel, RAMLoad, RAMStore, RegAlloc, Requantize, Workspace, loop
from .requant import requant_form


def _lead_rows(lead, y, dw, mid_w: int, c_mid: int):
    """Lead conv rows [lo, hi) computed at the start of output row y, each pixel into the ring.

    Row y of the output needs lead rows up to y*s - pad + k - 1 (its depthwise window's last);
    rows up to the previous output row's last are already in the ring."""
    mid_h = lead.output_shape[1]
    k, s, pad = dw.filter.shape[1], dw.stride[0], dw.padding[0]
    lo = imax(0, imin(imin(mid_h, (y - 1) * s - pad + k), y * mid_h))
    hi = imax(lo, imin(mid_h, y * s - pad + k))
    r, xm, u = Var("r"), Var("xm"), Var("u")
    pixel = conv_pixel(lead, Const(0), r, xm, params="p->lead", offsets="lead_offsets")
    pair = imin(c_mid - u, pixel.width)
    return loop("r", lo, hi, [
        loop("xm", 0, mid_w, [
            RegAlloc("midpx", "int8_t", c_mid),
            *pixel.reads,
            loop("u", 0, c_mid, pixel.unit(u, pair) + [Requantize("midpx", u, "acc", pair, u, "p->lead", pixel.form)],
                 step=pixel.width),
            RAMStore("ring", (r * mid_w + xm) * c_mid, c_mid, "midpx"),
        ]),
    ])


def inverted_bottleneck(params, segment: int) -> Kernel:
    p = params
    dw = p.depthwise
    _, h, w, c_in = p.input_shape
    _, mid_h, mid_w, c_mid = dw.input_shape
    _, o_h, o_w, c_out = p.output_shape
    y, x, q, u = Var("y"), Var("x"), Var("q"), Var("u")
    first, end = q * segment, imin(q * segment + segment, c_out)
    pair = imin(end - u, 2)
    lead = p.expand
    source = "ring" if lead is not None else "input0"
    project_unit = [
        *channel_pair("p->project", u, c_out, c_mid, pair),
        Dot("acc", 0, "mid", 0, ("w0", "w1"), 0, c_mid, "project_offsets", "p->project->input_offset", pair),
        Requantize("seg", u - first, "acc", pair, u, "p->project",
                   requant_form(p.project.filter, p.project.bias, p.project.requant, 0)),
    ]
    residual = []
    if p.add is not None:
        residual = [RAMLoad("res", "input0", (y * w + x) * c_in + first, end - first, max_bytes=segment),
                    AddResidual("seg", 0, "res", 0, end - first, "p->add", p.residual_first)]
    row_body = [loop("x", 0, o_w, [
        RegAlloc("mid", "int8_t", c_mid),
        loop("n", 0, 1, depthwise_pixel(dw, source, 0, c_mid, 0, 0, c_mid, 4, dst="mid", params="p->depthwise",
                                         offsets="dw_offsets")),
        loop("q", 0, -(-c_out // segment), [
            RegAlloc("seg", "int8_t", segment),
            loop("u", first, end, project_unit, step=2),
            *residual,
            RAMStore("output", (y * o_w + x) * c_out + first, end - first, "seg"),
        ]),
    ])]
    offsets = [Broadcast("dw_offsets", "p->depthwise->input_offset"),
               Broadcast("project_offsets", "p->project->input_offset")]
    workspaces = ()
    if lead is not None:  # its rows go to a ring in the workspace, computed at the start of each output row
        row_body.insert(0, _lead_rows(lead, y, dw, mid_w, c_mid))
        offsets.insert(0, Broadcast("lead_offsets", "p->lead->input_offset"))
        workspaces = (Workspace("ring", mid_h * mid_w * c_mid, p.ring_rows * mid_w * c_mid),)
    signature = ("inverted_bottleneck", tuple(p.input_shape), tuple(p.output_shape),
                 None if lead is None else (tuple(lead.filter.shape), lead.stride, lead.padding),
                 tuple(dw.filter.shape), dw.stride, dw.padding, p.add is not None, p.residual_first, segment)
    return Kernel(name="inverted_bottleneck", params_type="vmcu_inverted_bottleneck_params", signature=signature,
                  tensors={"input0": h * w * c_in, "output": o_h * o_w * c_out},
                  body=(*offsets, loop("y", 0, o_h, row_body)), workspaces=workspaces,
                  doc=f"INVERTED_BOTTLENECK {p.input_shape} -> {p.output_shape}, {segment}-byte segments")
