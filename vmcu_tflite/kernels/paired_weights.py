"""Which 1x1 layers store their int8 filter in the GEMM tile's layout: a channel pair's two rows
interleaved word by word.

The DSP tuning's GEMM assembly takes a channel pair at a time: per group of four inputs it loads a
word of each of the pair's two weight rows. With the rows apart in flash those are two loads (LDR
and LDR); with the pair's words side by side, group g of row 2j at 8g and of row 2j + 1 at 8g + 4
from the pair's start, one LDRD loads both, and the looped forms step one pointer over both rows,
which frees the register that held the rows' distance. Per group of four inputs: the 2x2 tile 14
instructions instead of 15, the tile of three 20 instead of 21, the tile of one 10 instead of 11
(`vmcu_gemm<t>x2p_...`: csrc/src/conv/vmcu_dot_dsp.c, vmcu_gemm3x2_dsp.c). The filter holds the same bytes in
another order: no flash, no pool access changes (the plan is the same).

Every reader of such a filter reads it in that layout: the description's dot products say so
(`Dot.paired`), which the reference interpreter executes and the C fallbacks follow. Taken for the
`dsp` tuning's int8 pointwise CONV_2D layers not widened to int16 (`widened_weights.py`), with an
even count of output channels (whole pairs) and rows the assembly takes (a multiple of 8 inputs, at
most `PAIRED_ROWS`: a tile of two rows widened on the stack, `gemm.WIDEN_BYTES`)."""
from __future__ import annotations

from dataclasses import replace

from ..chain import is_pointwise
from .gemm import WIDEN_BYTES

PAIRED_ROWS = WIDEN_BYTES // 4  # the longest rows: two pixels' inputs widened to int16 in WIDEN_BYTES


def pairs_weights(p) -> bool:
    """Whether the layer `p` stores its filter's channel pairs interleaved (see the module)."""
    depth = p.input_shape[3]
    return (is_pointwise(p) and getattr(p, "element", 1) == 1 and getattr(p, "tuning", "dsp") == "dsp"
            and not getattr(p, "int16_weights", False) and p.output_shape[3] % 2 == 0
            and depth % 8 == 0 and 8 <= depth <= PAIRED_ROWS)


def pair_weights(steps: tuple) -> tuple:
    """`steps` with the pointwise CONV_2D layers that take it marked `paired_weights` (`pairs_weights`)."""
    return tuple(replace(s, params=replace(s.params, paired_weights=True))
                 if s.kernel == "CONV_2D" and pairs_weights(s.params) else s for s in steps)


def interleaved(rows):
    """A [channels, depth] filter (channels even, depth a multiple of 4) in the paired layout: each
    pair's rows word by word, [channels / 2, depth / 4, 2, 4] flattened back to [channels, depth]."""
    c, k = rows.shape
    return rows.reshape(c // 2, 2, k // 4, 4).transpose(0, 2, 1, 3).reshape(c, k)
