"""LAYER_CHAIN: consecutive convolution layers fused, rows made on demand into rings
(`vmcu_tflite/chain.py` groups the layers into stages and sizes the rings).

Iterations: output row y of the last stage. Before it, the rows of the previous stage that its
window needs and that are not made yet are made into that stage's ring (row r in slot r mod
ring rows), and before each of those, the rows of the stage before it that row needs, and so on
down to the step's input: every row of every layer is computed once, when first needed. A
stage's pixel is its head layer's pixel (a depthwise pixel, or a convolution's window read as
`conv_pixel` reads it), then each 1x1 layer of the stage applied to that pixel in registers.
The last stage's pixels go to the output segment by segment; its input is freed as the windows
move past it (the interpreter's frontier), so the output may land on consumed input.
"""
from __future__ import annotations

from ..chain import is_depthwise
from .conv import conv_pixel
from .depthwise import depthwise_pixel
from .gemm import channel_pair, pair_bytes
from .index import Const, Ix, Var, imin
from .ir import Broadcast, Dot, Kernel, RAMStore, RegAlloc, Requantize, Workspace, loop
from .requant import requant_form
from .window import new_rows


def layer_param(params, j: int) -> str:
    """The C expression of layer j's params in a vmcu_layer_chain_params `p`."""
    table = "depthwise" if is_depthwise(params.layers[j]) else "conv"
    return f"p->{table}[{j}]"


def _head_pixel(params, j: int, source: str, row: Ix, col: Ix) -> tuple[list, str]:
    """Layer j's output pixel (row, col), read from `source`, into the buffer it returns."""
    layer, at, buf = params.layers[j], layer_param(params, j), f"px{j}"
    c_out = layer.output_shape[3]
    if is_depthwise(layer):
        lanes = 4 if layer.depth_multiplier == 1 else 1
        return [RegAlloc(buf, "int8_t", c_out),
                loop("n", 0, 1, depthwise_pixel(layer, source, 0, layer.input_shape[3], 0, 0, c_out, lanes, dst=buf,
                                                params=at, offsets=f"off{j}", x=col, y=row))], buf
    pixel = conv_pixel(layer, Const(0), row, col, params=at, offsets=f"off{j}", source=source)
    u = Var(f"u{j}")
    pair = imin(c_out - u, pixel.width)
    return [RegAlloc(buf, "int8_t", pair_bytes(c_out)), *pixel.reads,
            loop(f"u{j}", 0, c_out, pixel.unit(u, pair) + [Requantize(buf, u, "acc", pair, u, at, pixel.form)],
                 step=pixel.width)], buf


def _pointwise_pixel(params, j: int, src: str) -> tuple[list, str]:
    """1x1 layer j applied to the pixel in buffer `src`, two output channels per weight pass."""
    layer, at, buf = params.layers[j], layer_param(params, j), f"px{j}"
    c_in, c_out = layer.input_shape[3], layer.output_shape[3]
    form = requant_form(layer.filter, layer.bias, layer.requant, 0)
    u = Var(f"u{j}")
    pair = imin(c_out - u, 2)
    return [RegAlloc(buf, "int8_t", pair_bytes(c_out)),
            loop(f"u{j}", 0, c_out, [
                *channel_pair(at, u, c_out, c_in, pair, 1, form),
                Dot("acc", 0, src, 0, ("w0", "w1"), 0, c_in, f"off{j}", f"{at}->input_offset", pair),
                Requantize(buf, u, "acc", pair, u, at, form),
            ], step=2)], buf


def _stage_pixel(params, i: int, row: Ix, col: Ix) -> tuple[list, str]:
    stage = params.stages[i]
    statements, buf = _head_pixel(params, stage.first, "input0" if i == 0 else f"ring{i - 1}", row, col)
    for j in range(stage.first + 1, stage.end):
        more, buf = _pointwise_pixel(params, j, buf)
        statements += more
    return statements, buf


def _make_rows(params, i: int, needed_by: Ix):
    """The rows of stage i that row `needed_by` of stage i + 1 is the first to need, into ring i."""
    head = params.layers[params.stages[i + 1].first]
    _, h, w, c = params.stage_output(params.stages[i])
    r, x = Var(f"r{i}"), Var(f"x{i}")
    lo, hi = new_rows(needed_by, head.stride[0], head.padding[0], head.filter.shape[1], h)
    pixel, buf = _stage_pixel(params, i, r, x)
    body = [_make_rows(params, i - 1, r)] if i > 0 else []
    body.append(loop(f"x{i}", 0, w, [*pixel, RAMStore(f"ring{i}", (r * w + x) * c, c, buf)]))
    return loop(f"r{i}", lo, hi, body)


def layer_chain(params, segment: int) -> Kernel:
    p = params
    last = len(p.stages) - 1
    _, h, w, c_in = p.input_shape
    _, o_h, o_w, c_out = p.output_shape
    workspaces, at = [], 0
    for i, stage in enumerate(p.stages[:-1]):
        _, s_h, s_w, s_c = p.stage_output(stage)
        workspaces.append(Workspace(f"ring{i}", s_h * s_w * s_c, p.ring_bytes(stage), at))
        at += p.ring_bytes(stage)
    y, x, q = Var("y"), Var("x"), Var("q")
    pixel, buf = _stage_pixel(p, last, y, x)
    first, end = q * segment, imin(q * segment + segment, c_out)
    row_body = [_make_rows(p, last - 1, y)] if last > 0 else []
    row_body.append(loop("x", 0, o_w, [*pixel, loop("q", 0, -(-c_out // segment), [
        RAMStore("output", (y * o_w + x) * c_out + first, end - first, buf, first)])]))
    offsets = [Broadcast(f"off{j}", f"{layer_param(p, j)}->input_offset") for j in range(len(p.layers))]
    signature = ("layer_chain", tuple((type(layer).__name__, tuple(layer.input_shape), tuple(layer.filter.shape),
                                       layer.stride, layer.padding) for layer in p.layers), segment)
    kinds = "-".join("dw" if is_depthwise(layer) else f"conv{layer.filter.shape[1]}"
                     for layer in p.layers)
    return Kernel(name="layer_chain", params_type="vmcu_layer_chain_params", signature=signature,
                  tensors={"input0": h * w * c_in, "output": o_h * o_w * c_out},
                  body=(*offsets, loop("y", 0, o_h, row_body)), workspaces=tuple(workspaces),
                  doc=f"LAYER_CHAIN {kinds} {p.input_shape} -> {p.output_shape}, {segment}-byte segments")
