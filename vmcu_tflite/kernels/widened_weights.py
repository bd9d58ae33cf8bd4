"""Which 1x1 and depthwise layers keep their filter widened to int16 in flash: speed bought with a
little flash.

The DSP tuning's 2x2 GEMM tile (two pixels by two output channels) spends, per group of four
inputs, one LDM of both pixels' widened inputs, two loads of int8 weights and four SXTB16 to
widen them, and eight SMLADs: 15 instructions for 16 multiply-accumulates. With the weights
widened once at conversion the loads become two LDRDs and the SXTB16s go: 11 instructions
(`vmcu_gemm2x2w_k<k>_narrow_b*_run`). The four saved per group come back at every pixel pair, so a
layer saves a quarter of an instruction per multiply-accumulate, about `pixels / 4` per byte its
filter grows: the early layers, with many pixels and few weights, buy the most for the least.

A depthwise layer's groups of four channels (SMLABB/SMLATT) spend, per tap and half group (channels
0 and 2, or 1 and 3), one load and one SXTB16 of the int8 weights, which serve a pixel pair's four
products (vmcu_mac2x2_row_s8), or one pixel's two (vmcu_mac4_s8, a load for both halves). Stored
lane-ordered (kernels/ir.py: each group's taps widened and split into those halves at conversion) the
SXTB16 goes: again a quarter of an instruction per multiply-accumulate, `pixels / 4` per byte, and the
layers of both kinds are ranked together.

The layers are taken by that gain per byte, most first (of layers alike, the larger filter first: the
budget bought by fewer layers), until their int16 copies hold
`WIDENED_SHARE` of the model's filter bytes, or `WIDENED_FLOOR` bytes where that is more: a small
model's share would buy no layer at all (KWS DS-CNN: 4 % of its 22 KB of filters is 0.9 KB, its
1x1 filters 4 KB each), while a few KB of flash are spare on any core that runs the model. An
explicit share (`--widened-weights`) is taken as given. The candidates: 1x1 layers whose rows the
assembly takes unrolled (`UNROLLED_ROWS`: elsewhere the C loop would read them, at no gain), and
depthwise layers of whole four-channel groups (a multiplier of 1, channels a multiple of four)
unless the plan runs them in place in planes that hold their taps in registers
(`planes.taps_in_registers`), which read each tap once per plane: there an int16 copy would buy
nothing (MCUNet-320KB-ImageNet's two 5x5 layers over 22x22x120 held 6,000 bytes of it).
Widening changes no pool access (the plan is the same), only the filter's flash table and the
kernel's dot products, which the reference interpreter executes as written; so the plan is made
first, and the layers widened for it (`pipeline._steps_for_plan`).

A share of 0 asks for the least flash: no layer widened, and no fused depthwise layer making its rows
three pixels at a time (`pixel_triples`, `kernels/chain._in_threes`), whose unrolled triples take more
code than pairs (1.5 KB on MCUNet-320KB-ImageNet, which a 1 MB STM32F405 holds only without them)."""
from __future__ import annotations

from dataclasses import replace

from ..chain import is_pointwise
from .lower.dsp import UNROLLED_ROWS
from .tuning import depthwise_lanes

WIDENED_SHARE = 0.04  # of the model's filter bytes, for the int16 copies' extra bytes
WIDENED_FLOOR = 4096  # bytes the default share may round up to


def _candidate(step, in_place: frozenset[int]) -> bool:
    """An int8 layer on the DSP tuning: a pointwise CONV_2D whose rows the assembly unrolls, or a
    DEPTHWISE_CONV_2D of whole four-channel groups whose ops are not in `in_place`."""
    p = step.params
    if getattr(p, "element", 1) != 1 or getattr(p, "tuning", "dsp") != "dsp":
        return False
    if step.kernel == "DEPTHWISE_CONV_2D":
        return (p.depth_multiplier == 1 and p.output_shape[3] % 4 == 0 and depthwise_lanes(p) == 4
                and not set(step.ops) & in_place)
    return step.kernel == "CONV_2D" and is_pointwise(p) and p.input_shape[3] in UNROLLED_ROWS


def widen_weights(steps: tuple, share: float | None = None, in_place: frozenset[int] = frozenset()) -> tuple:
    """`steps` with the chosen layers' params marked `int16_weights` (see the module); `share`
    of the model's filter bytes for their int16 copies, unless None: then `WIDENED_SHARE` of them
    or `WIDENED_FLOOR` bytes, whichever is more (a share of 0 still takes none).

    `in_place`: the ops of the depthwise layers a plan runs in place in planes that read each tap
    once per plane (`planes.taps_in_registers`): a widened filter would buy them nothing, so the
    bytes go to the next layers ranked."""
    filters = sum(int(s.params.filter.size) for s in steps if hasattr(getattr(s.params, "filter", None), "size"))
    if share is None:
        budget = max(WIDENED_SHARE * filters, WIDENED_FLOOR if WIDENED_SHARE else 0)
    else:
        budget = share * filters
    ranked = sorted((s for s in steps if _candidate(s, in_place)),
                    key=lambda s: (-_pixels(s.params), -int(s.params.filter.size), s.index))
    chosen, used = set(), 0
    for s in ranked:
        extra = int(s.params.filter.size)  # int16 rows: one more byte per weight
        if used + extra <= budget:
            chosen.add(s.index)
            used += extra
    steps = tuple(replace(s, params=replace(s.params, int16_weights=True)) if s.index in chosen else s for s in steps)
    if share == 0:  # the least flash: pixel pairs only
        steps = tuple(replace(s, params=replace(s.params, pixel_triples=False)) if s.kernel == "DEPTHWISE_CONV_2D"
                      else s for s in steps)
    return steps


def _pixels(p) -> int:
    """Output pixels of a layer: the uses of each weight."""
    n, h, w, _ = p.output_shape
    return n * h * w
