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

from .conv import GATHER_BYTES
from .depthwise import depthwise_pixel
from .index import Var, imax, imin
from .ir import (AddResidual, Broadcast, Dot, FlashLoad, InitBias, Kernel, RAMLoad, RAMStore, RegAlloc, Requantize,
                 Workspace, loop)
from .window import taps


def _lead_rows(lead, y, dw, mid_w: int, c_mid: int):
    """Lead conv rows [lo, hi) computed at the start of output row y, each pixel into the ring."""
    _, h, w, c_in = lead.input_shape
    _, k_h, k_w, _ = lead.filter.shape
    (s_h, s_w), (p_h, p_w) = lead.stride, lead.padding
    mid_h = lead.output_shape[1]
    k, s, pad = dw.filter.shape[1], dw.stride[0], dw.padding[0]
    lo = imax(0, imin(imin(mid_h, (y - 1) * s - pad + k), y * mid_h))
    hi = imax(lo, imin(mid_h, y * s - pad + k))
    r, xm, u, ky = Var("r"), Var("xm"), Var("u"), Var("ky")
    window = k_h * k_w * c_in
    pair = imin(c_mid - u, 2)
    unit = [RegAlloc("acc", "int32_t", 2),
            FlashLoad("w0", "p->lead->filter", u * window),
            FlashLoad("w1", "p->lead->filter", imin(u + 1, c_mid - 1) * window),
            InitBias("acc", "p->lead->bias", u, pair)]
    pointwise = (k_h, k_w) == (1, 1) and lead.stride == (1, 1) and lead.padding == (0, 0)
    if pointwise:
        reads = []
        unit = [RAMLoad("px", "input0", (r * w + xm) * c_in, c_in, max_bytes=c_in)] + unit + [
            Dot("acc", 0, "px", 0, ("w0", "w1"), 0, c_in, "lead_offsets", "p->lead->input_offset", pair)]
    else:
        rows, cols = taps(r, s_h, p_h, 1, k_h, h), taps(xm, s_w, p_w, 1, k_w, w)
        if window > GATHER_BYTES:
            raise ValueError(f"a fused lead conv window of {window} bytes is larger than {GATHER_BYTES}")
        reads = [
            RegAlloc("window", "int8_t", window, fill="(int8_t)(-p->lead->input_offset)"),
            loop("ky", rows.lo, rows.hi, [
                RAMLoad("win", "input0", ((rows.origin + ky) * w + cols.origin + cols.lo) * c_in,
                        (cols.hi - cols.lo) * c_in, max_bytes=k_w * c_in, into="window",
                        into_index=(ky * k_w + cols.lo) * c_in),
            ], extent=k_h)]
        unit.append(Dot("acc", 0, "window", 0, ("w0", "w1"), 0, window, "lead_offsets", "p->lead->input_offset",
                        pair))
    unit.append(Requantize("midpx", u, "acc", pair, u, "p->lead"))
    return loop("r", lo, hi, [
        loop("xm", 0, mid_w, [
            RegAlloc("midpx", "int8_t", c_mid),
            *reads,
            loop("u", 0, c_mid, unit, step=2),
            RAMStore("ring", (r * mid_w + xm) * c_mid, c_mid, "midpx"),
        ]),
    ], extent=mid_h)


def inverted_bottleneck(params, segment: int) -> Kernel:
    p = params
    dw, project = p.depthwise, p.project
    _, h, w, c_in = p.input_shape
    _, mid_h, mid_w, c_mid = dw.input_shape
    _, o_h, o_w, c_out = p.output_shape
    y, x, q, u = Var("y"), Var("x"), Var("q"), Var("u")
    first, end = q * segment, imin(q * segment + segment, c_out)
    pair = imin(end - u, 2)
    lead = p.expand
    source = "ring" if lead is not None else "input0"
    project_unit = [
        RegAlloc("acc", "int32_t", 2),
        FlashLoad("w0", "p->project->filter", u * c_mid),
        FlashLoad("w1", "p->project->filter", imin(u + 1, c_out - 1) * c_mid),
        InitBias("acc", "p->project->bias", u, pair),
        Dot("acc", 0, "mid", 0, ("w0", "w1"), 0, c_mid, "project_offsets", "p->project->input_offset", pair),
        Requantize("seg", u - first, "acc", pair, u, "p->project"),
    ]
    residual = []
    if p.add is not None:
        residual = [RAMLoad("res", "input0", (y * w + x) * c_in + first, end - first, max_bytes=segment),
                    AddResidual("seg", 0, "res", 0, end - first, "p->add", p.residual_first)]
    row_body = [loop("x", 0, o_w, [
        RegAlloc("mid", "int8_t", c_mid),
        loop("n", 0, 1, depthwise_pixel(dw, source, 0, c_mid if lead is not None else c_in, 0, 0, c_mid, 4, c_mid,
                                         dst="mid", params="p->depthwise", offsets="dw_offsets")),
        loop("q", 0, -(-c_out // segment), [
            RegAlloc("seg", "int8_t", segment),
            loop("u", first, end, project_unit, step=2, extent=-(-segment // 2)),
            *residual,
            RAMStore("output", (y * o_w + x) * c_out + first, end - first, "seg"),
        ]),
    ])]
    if lead is not None:
        row_body.insert(0, _lead_rows(lead, y, dw, mid_w, c_mid))
    offsets = [Broadcast("dw_offsets", "p->depthwise->input_offset"),
               Broadcast("project_offsets", "p->project->input_offset")]
    if lead is not None:
        offsets.insert(0, Broadcast("lead_offsets", "p->lead->input_offset"))
    workspaces = ()
    if lead is not None:
        workspaces = (Workspace("ring", mid_h * mid_w * c_mid, p.ring_rows * mid_w * c_mid),)
    signature = ("inverted_bottleneck", tuple(p.input_shape), tuple(p.output_shape),
                 None if lead is None else (tuple(lead.filter.shape), lead.stride, lead.padding),
                 tuple(dw.filter.shape), dw.stride, dw.padding, p.add is not None, p.residual_first, segment)
    return Kernel(name="inverted_bottleneck", params_type="vmcu_inverted_bottleneck_params", signature=signature,
                  tensors={"input0": h * w * c_in, "output": o_h * o_w * c_out},
                  body=(*offsets, loop("y", 0, o_h, row_body)), workspaces=workspaces,
                  doc=f"INVERTED_BOTTLENECK {p.input_shape} -> {p.output_shape}, {segment}-byte segments")
