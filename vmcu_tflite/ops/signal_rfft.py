"""SignalRfft, int16 (TFLite Micro's signal library): each row of int16 samples, zero-padded to
fft_length, through kissfft's 16-bit fixed-point real FFT (kiss_fftr: a complex FFT of
fft_length / 2 points, then the split into fft_length / 2 + 1 bins), as int16 (real, imag) pairs.

The arithmetic is kissfft's FIXED_POINT 16 one: Q15 twiddles floor(0.5 + 32767 cos/sin(phase)),
every butterfly input divided by its radix first (C_FIXDIV: x * (32767 / radix), rounded, >> 15),
products rounded to 15 bits, sums wrapped to int16. The twiddle tables are computed here, for the C
kernel's flash; the reference kernel computes its own. Radix 4, 2, 3 and 5 stages run (any even
fft_length whose half has no other prime factor, as 480 = 2 x 4 x 4 x 3 x 5); kissfft's generic
butterfly (a prime factor of 7 or more) and the int32 and float32 variants TFLite Micro also has are
refused.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..codegen.params.signal import emit_rfft
from ..graph import Graph, Op
from .common import require
from .signal_common import int_option, typed
from .spec import OpSpec

KIND = "SignalRfft"
MAX_STAGES = 8  # VMCU_RFFT_MAX_FACTORS
TENSOR_TYPE_INT16 = 7  # the schema's TensorType, the 'T' option
KEYS = ("T", "fft_length")  # Init reads T by name and fft_length at position 1


@dataclass(frozen=True, eq=False)
class RfftParams:
    fft_length: int
    input_length: int  # samples per row (the rest of fft_length is zeros)
    rows: int
    factors: tuple[int, ...]  # kissfft's (radix, remaining length) pairs for fft_length / 2
    twiddles: np.ndarray  # int16 [fft_length / 2, 2]
    super_twiddles: np.ndarray  # int16 [fft_length / 4, 2]

    @property
    def scratch_bytes(self) -> int:
        """The zero-padded row and the complex FFT's output, int16, plus 3 bytes to align them."""
        return 2 * self.fft_length + 2 * self.fft_length + 3


def factors(n: int) -> tuple[int, ...]:
    """kissfft's kf_factor: radix 4 while it divides, then 2, 3, 5, ... (n itself past sqrt(n))."""
    found, p, floor_sqrt = [], 4, math.floor(math.sqrt(n))
    while True:
        while n % p:
            p = {4: 2, 2: 3}.get(p, p + 2)
            if p > floor_sqrt:
                p = n
        n //= p
        found += [p, n]
        if n <= 1:
            return tuple(found)


def _q15(phase: float) -> tuple[int, int]:
    return math.floor(0.5 + 32767 * math.cos(phase)), math.floor(0.5 + 32767 * math.sin(phase))


def prepare(graph: Graph, op: Op) -> RfftParams:
    kind = int_option(op, "T", KEYS)
    require(kind == TENSOR_TYPE_INT16, op, f"T is tensor type {kind}; only the int16 FFT (type 7) is supported")
    fft_length = int_option(op, "fft_length", KEYS)
    x = typed(graph, op, 0, "int16", "input")
    y = typed(graph, op, 0, "int16", "output", output_=True)
    require(4 <= fft_length <= 1 << 14 and fft_length % 2 == 0, op,
            f"fft_length {fft_length} is not an even length from 4 to 16384")
    radixes = factors(fft_length // 2)[::2]
    require(set(radixes) <= {2, 3, 4, 5} and len(radixes) <= MAX_STAGES, op,
            f"fft_length {fft_length}: kissfft splits its {fft_length // 2} points into radix {list(radixes)} stages; "
            "only radix 2, 3, 4 and 5 are supported (not kissfft's generic butterfly)")
    require(len(x.shape) >= 1 and len(x.shape) == len(y.shape), op,
            f"input shape {x.shape} and output shape {y.shape} differ in rank")
    length = x.shape[-1]
    rows = x.num_elements // length if length else 0
    require(1 <= length <= fft_length, op, f"its rows of {length} samples do not fit fft_length {fft_length}")
    require(y.shape[-1] == fft_length + 2 and y.num_elements == rows * (fft_length + 2), op,
            f"output shape {y.shape}: TFLite Micro writes {rows} rows of fft_length / 2 + 1 = {fft_length // 2 + 1} "
            "(real, imag) pairs")
    half = fft_length // 2
    twiddles = [_q15(-2 * math.pi * i / half) for i in range(half)]
    super_twiddles = [_q15(-math.pi * ((i + 1) / half + 0.5)) for i in range(half // 2)]
    return RfftParams(fft_length=fft_length, input_length=length, rows=rows, factors=factors(half),
                      twiddles=np.array(twiddles, dtype=np.int16).reshape(half, 2),
                      super_twiddles=np.array(super_twiddles, dtype=np.int16).reshape(half // 2, 2))


SPEC = OpSpec(KIND, kind_id=50, emit=emit_rfft, prepare=prepare, c_kernel="vmcu_signal_rfft",
              arity=((1, 1), 1, frozenset()),
              custom=True, activation_types=frozenset({"int16"}), scratch=lambda p: p.scratch_bytes)
