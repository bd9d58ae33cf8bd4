"""What a layer's generated requantization may assume, proved at conversion time from its constants.

TFLite's MultiplyByQuantizedMultiplier, in general, needs a 64-bit product, a saturation case and
a branch on the sign of each channel's shift (`vmcu_requantize`, about 15 instructions on a
Cortex-M4 per output value). The converter knows a layer's weights, biases and shifts, so it can
prove per layer that the general case never happens:

- narrow: every channel shifts right (shift <= -1) with a normalized multiplier (|m| in [2^30,
  2^31), which TFLite's QuantizeMultiplier gives every non-zero scale; a negative one's channel is
  negated) or has a zero multiplier, and every accumulator the layer can produce stays below
  2^30 in magnitude, whatever the int8 input: |bias| + 255 * sum |w| < 2^30 (an input plus its
  offset lies in [-255, 255]). Then the doubling high multiply and its rounding are one SMMLAR,
  and the rounding right shift two adds and two shifts (`vmcu_requantize_narrow`: the same bits,
  about 6 instructions before the store). Its tables hold what those instructions take (`tables`).
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
NORMALIZED = 1 << 30  # the smallest multiplier QuantizeMultiplier gives a non-zero scale
INPUT_SPAN = 255  # |x + input_offset| for an int8 x and an offset in [-127, 128]


@dataclass(frozen=True)
class RequantForm:
    narrow: bool = False  # right shifts, normalized multipliers, accumulators below 2^30: vmcu_requantize_narrow
    saturate: bool = False
    shifted: bool = False  # any shifts, each channel's accumulators below 2^30 after its left shift
    bias: str = "int32_t"  # the C type of the layer's bias table (`bias_ctype`)
    negated: tuple[int, ...] = ()  # narrow: the channels whose tables hold -w, -bias and -m (`negate`)
    wide: bool = False  # 16x8 with an int64 bias: int64 accumulators, the 64-bit requantization (vmcu_requantize64)
    lanes32: bool = False  # wide, every accumulator an int32 and every shift in [-17, -1]: Helium's VRMULH lanes


GENERAL = RequantForm()


def requant_form(filter_: np.ndarray, bias: np.ndarray, requant, channel_axis: int,
                 table: np.ndarray | None = None) -> RequantForm:
    """The form for a layer whose output channel c sums filter_ over every axis but `channel_axis`;
    `table`, the bias table the C holds where it is not the bias (the input offset folded in, offset.py):
    the accumulators end the same, so only the table's C type depends on it.

    Narrow takes every channel that is normalized (|m| in [2^30, 2^31), shift <= -1) or zero (m = 0:
    TFLite's output is the offset, whatever the shift). A negative multiplier (a negative filter
    scale) is normalized by negating the channel: TFLite's SaturatingRoundingDoublingHighMul
    depends on the product x * m alone, so (-w, -bias, -m) gives the same bits, and the channel's
    weights stay int8 unless one is -128, which keeps the layer out of the narrow form."""
    weights = np.asarray(filter_, dtype=np.int64)
    axes = tuple(a for a in range(weights.ndim) if a != channel_axis % weights.ndim)
    bound = np.abs(np.asarray(bias, dtype=np.int64)).reshape(-1) + INPUT_SPAN * np.abs(weights).sum(axis=axes).reshape(-1)
    multiplier = np.asarray(requant.multiplier, dtype=np.int64)
    shift = np.asarray(requant.shift, dtype=np.int64)
    negative = multiplier < 0
    negatable = ~negative | ~(weights == -128).any(axis=axes).reshape(-1)
    normalized = (np.abs(multiplier) >= NORMALIZED) & (np.abs(multiplier) < (1 << 31)) & (shift <= -1) & negatable
    narrow = bool(np.all(normalized | (multiplier == 0))) and int(bound.max(initial=0)) < NARROW_LIMIT
    left = np.maximum(shift, 0)
    shifted = bool(np.all(bound * (np.int64(1) << np.minimum(left, 31)) < NARROW_LIMIT)) if len(bound) else True
    return RequantForm(narrow=narrow, saturate=(requant.act_min, requant.act_max) == (-128, 127),
                       shifted=shifted and not narrow, bias=bias_ctype(bias if table is None else table),
                       negated=tuple(int(c) for c in np.flatnonzero(negative)) if narrow else ())


def requant_form16(bias: np.ndarray, wide: bool, filter_: np.ndarray | None = None, requant=None,
                   channel_axis: int = 0) -> RequantForm:
    """A 16x8 layer's form: TFLite's general requantization (the 64-bit one where `wide`), its clamp
    in int16 from the params; the bias table as narrow as its values allow (`bias_ctype`: the
    accumulator starts at the same value whatever the table's type). Given the filter and the
    requantization constants, also whether the wide form's values fit Helium's lanes (`wide_lanes`)."""
    lanes = wide and filter_ is not None and requant is not None and wide_lanes(filter_, bias, requant, channel_axis)
    return RequantForm(wide=wide, bias=bias_ctype(bias, wide), lanes32=lanes)


INPUT16_SPAN = 1 << 15  # |x| for an int16 activation (zero point 0)
LANE_SHIFTS = (-17, -1)  # the shifts whose 64-bit requantization is one VRMULH (`wide_lanes`)


def wide_lanes(filter_: np.ndarray, bias: np.ndarray, requant, channel_axis: int) -> bool:
    """Whether a wide layer's requantization can run on four int32 lanes (vmcu_requantize64_lanes_mve).

    vmcu_requantize64 rounds the multiplier m to m16 = (m + 2^15) >> 16 (at most 0x7FFF) and returns
    (x m16 + 2^(t-1)) >> t, t = 15 - shift. Where every accumulator the layer can produce is an int32,
    |bias| + 2^15 sum |w| < 2^31 whatever the int16 input, and t lies in [16, 32] (shift in [-17, -1]),
    b = m16 2^(32-t) is an int32 (|m16| <= 2^15, 32 - t <= 16) and VRMULH(x, b) = (x b + 2^31) >> 32
    is the same value: numerator and denominator are those of the 64-bit form times 2^(32-t). That
    value is at most 2^30 in magnitude (|x| <= 2^31, |m16| / 2^t <= 2^-1), so the 64-bit form's low
    word, which the scalar helper keeps, is all of it."""
    weights = np.asarray(filter_, dtype=np.int64)
    if weights.size == 0:
        return False
    axes = tuple(a for a in range(weights.ndim) if a != channel_axis % weights.ndim)
    sums = np.abs(weights).sum(axis=axes).reshape(-1)
    biases = np.zeros_like(sums) if bias is None else np.abs(np.asarray(bias, dtype=np.int64)).reshape(-1)
    if biases.size not in (1, sums.size):
        return False
    shift = np.asarray(requant.shift, dtype=np.int64).reshape(-1)
    fits = int((biases + INPUT16_SPAN * sums).max()) < (1 << 31)
    return fits and bool(np.all((shift >= LANE_SHIFTS[0]) & (shift <= LANE_SHIFTS[1])))


def bias_ctype(bias: np.ndarray, wide: bool = False) -> str:
    """The C type of a layer's bias table: int16_t where every value fits (half the flash), else
    int32_t. codegen/params writes the table with it and the layer's generated kernel reads it so."""
    values = np.asarray(bias, dtype=np.int64)
    if wide and values.size and int(np.abs(values).max()) >= (1 << 31) - 1:
        return "int64_t"  # an int64 bias beyond int32 (`wide`: a 16x8 layer's)
    return "int16_t" if values.size and int(np.abs(values).max()) < (1 << 15) else "int32_t"


def tables(form: RequantForm, requant) -> tuple[np.ndarray, np.ndarray]:
    """A layer's multiplier and shift tables as its generated kernel reads them (int32, int8).

    The narrow form's hold the operands of its instructions rather than TFLite's numbers, so that
    no instruction per output value converts them:
    - 2m - 2^32 for a multiplier m in [2^30, 2^31) (|m| for a negated channel): SMMLAR(x, 2m - 2^32,
      x) is the high word of x * 2^32 + x * (2m - 2^32) + 2^31 = 2xm + 2^31, which is
      SMMULR(2x, m) without forming 2x;
    - r - 1 = ~shift for a right shift r = -shift >= 1: the first of the two shifts right;
    - for a zero multiplier, 2^30 and r = 31: then |v| = |SMMULR(2x, 2^30)| < 2^29, which both
      shifts round to 0 (v >= 0) or -1 (v < 0, before the last halving's +1), so the channel
      gives exactly its offset, as TFLite's zero multiplier does.
    Every other form keeps TFLite's multiplier and shift."""
    multiplier = np.asarray(requant.multiplier, dtype=np.int64)
    shift = np.asarray(requant.shift, dtype=np.int64)
    if not form.narrow:
        return multiplier.astype(np.int32), shift.astype(np.int8)
    zero = multiplier == 0
    m = np.where(zero, 1 << 30, np.abs(multiplier))
    r1 = np.where(zero, 30, -shift - 1)
    return (m * 2 - (1 << 32)).astype(np.int32), r1.astype(np.int8)


def negate(values: np.ndarray, form: RequantForm, channel_axis: int) -> np.ndarray:
    """A layer's filter or bias table with the channels `form` negates (requant_form) negated."""
    values = np.array(values, copy=True)
    if form.negated:
        index = [slice(None)] * values.ndim
        index[channel_axis] = list(form.negated)
        values[tuple(index)] = -values[tuple(index)]
    return values
