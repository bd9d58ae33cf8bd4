"""What a layer's generated requantization may assume, proved at conversion time from its constants.

TFLite's MultiplyByQuantizedMultiplier, in general, needs a 64-bit product, a saturation case and
a branch on the sign of each channel's shift (`vmcu_requantize`, about 15 instructions on a
Cortex-M4 per output value). The converter knows a layer's weights, biases and shifts, so it can
prove per layer that the general case never happens:

- narrow: every channel shifts right (shift <= -1) and every accumulator the layer can produce
  stays below 2^30 in magnitude, whatever the int8 input: |bias| + 255 * sum |w| < 2^30 (an input
  plus its offset lies in [-255, 255]). Then twice the accumulator fits in int32 and the doubling
  high multiply is one SMMULR (`vmcu_requantize_narrow`: the same bits, about 9 instructions).
- shifted: the same bound after each channel's left shift, with shifts of either sign (a stem's
  channels often shift by 0 or 1): `vmcu_requantize_shifted`, a few instructions more than
  narrow, still one SMMULR and no 64-bit sum.
- saturate: the activation range is all of int8 (no fused activation), so the clamp is a
  saturation the compiler turns into one SSAT, with no bound to load.

These are facts of the layer's constants, not assumptions about its inputs: a model either has
them or the C keeps the general form. The same goes for the bias table's C type (`bias_ctype`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NARROW_LIMIT = 1 << 30
INPUT_SPAN = 255  # |x + input_offset| for an int8 x and an offset in [-127, 128]


@dataclass(frozen=True)
class RequantForm:
    narrow: bool = False  # right shifts only, accumulators below 2^30: vmcu_requantize_narrow
    saturate: bool = False
    shifted: bool = False  # any shifts, each channel's accumulators below 2^30 after its left shift
    bias: str = "int32_t"  # the C type of the layer's bias table (`bias_ctype`)


GENERAL = RequantForm()


def requant_form(filter_: np.ndarray, bias: np.ndarray, requant, channel_axis: int,
                 table: np.ndarray | None = None) -> RequantForm:
    """The form for a layer whose output channel c sums filter_ over every axis but `channel_axis`;
    `table`, the bias table the C holds where it is not the bias (the input offset folded in, offset.py):
    the accumulators end the same, so only the table's C type depends on it."""
    weights = np.abs(np.asarray(filter_, dtype=np.int64))
    axes = tuple(a for a in range(weights.ndim) if a != channel_axis % weights.ndim)
    bound = np.abs(np.asarray(bias, dtype=np.int64)).reshape(-1) + INPUT_SPAN * weights.sum(axis=axes).reshape(-1)
    narrow = all(s <= -1 for s in requant.shift) and int(bound.max(initial=0)) < NARROW_LIMIT
    left = np.maximum(np.asarray(requant.shift, dtype=np.int64), 0)
    shifted = bool(np.all(bound * (np.int64(1) << np.minimum(left, 31)) < NARROW_LIMIT)) if len(bound) else True
    return RequantForm(narrow=narrow, saturate=(requant.act_min, requant.act_max) == (-128, 127),
                       shifted=shifted and not narrow, bias=bias_ctype(bias if table is None else table))


def bias_ctype(bias: np.ndarray) -> str:
    """The C type of a layer's bias table: int16_t where every value fits (half the flash), else
    int32_t. codegen/params writes the table with it and the layer's generated kernel reads it so."""
    values = np.asarray(bias, dtype=np.int64)
    return "int16_t" if values.size and int(np.abs(values).max()) < (1 << 15) else "int32_t"
