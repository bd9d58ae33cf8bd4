"""SignalFftAutoScale (TFLite Micro's signal library): int16 samples shifted left by as many bits
as their largest magnitude leaves free, and that shift as an int32 scalar (the filter bank's square
root takes it back out).

Its two outputs become two steps (`passes.one_output_per_split`), one per output, each reading the
input: `part` 0 writes the shifted samples, part 1 the shift. The largest magnitude is TFLite Micro's
MaxAbs16, an int16 running maximum of v and -v (so -32768 wraps, as there), and the bit count
16 - MostSignificantBit32(max) - 1, at least 0 (MostSignificantBit32(0) is 32 in a GCC build).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.signal import emit_fft_auto_scale
from ..graph import Graph, Op
from .common import require
from .signal_common import typed
from .spec import OpSpec

KIND = "SignalFftAutoScale"


@dataclass(frozen=True)
class FftAutoScaleParams:
    size: int  # samples (the output's first dimension, which TFLite Micro walks)
    part: int  # 0: the shifted samples; 1: the shift


def prepare(graph: Graph, op: Op) -> FftAutoScaleParams:
    part = op.options.get("fft_auto_scale_part")
    require(part in (0, 1) and len(op.outputs) == 1, op, "has not been split into its two outputs")
    x = typed(graph, op, 0, "int16", "input")
    y = typed(graph, op, 0, "int16" if part == 0 else "int32", "output" if part == 0 else "scale bit output",
              output_=True)
    size = op.options["fft_auto_scale_size"]
    require(len(x.shape) == 1 and op.options["fft_auto_scale_ranks"] == (1, 0), op,
            f"input shape {x.shape}: TFLite Micro requires a 1-D input and output and a scalar scale bit output")
    require(size <= x.num_elements, op, f"its output has {size} samples, its input {x.num_elements} "
                                        "(TFLite Micro reads as many input samples as the output has)")
    if part == 0:
        require(y.shape == (size,), op, f"output shape {y.shape}")
    return FftAutoScaleParams(size=size, part=part)


SPEC = OpSpec(KIND, kind_id=49, emit=emit_fft_auto_scale, prepare=prepare, c_kernel="vmcu_signal_fft_auto_scale",
              arity=((1, 1), 2, frozenset()), custom=True, activation_types=frozenset({"int16", "int32"}))
