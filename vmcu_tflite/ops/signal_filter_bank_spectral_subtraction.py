"""SignalFilterBankSpectralSubtraction (TFLite Micro's FilterBankSpectralSubtractionEval): a
running noise estimate per channel, subtracted from the channel's energy.

Per channel i (the odd ones with the alternate coefficients): the input scaled up by
`smoothing_bits` (uint32, wrapping); the estimate becomes (scaled * smoothing + estimate *
one_minus_smoothing) >> spectral_subtraction_bits in uint64 (wrapping), kept as uint32; the output
is the scaled input minus the estimate (clamped at the input, and with `clamping` the estimate
clamped too), scaled back down, but no less than input * min_signal_remaining >>
spectral_subtraction_bits. The second output is a copy of the estimate.

The estimate is the op's own state, not a tensor of the model: TFLite Micro keeps it in a
persistent buffer that Prepare and Reset zero. Here it lives in the runtime's state region
(`vmcu_tflite.state`, keyed by the noise estimate output's tensor index), zeroed when the region is
reset, and the step reads and updates it in place. A step writes one tensor: the passes give the
op its first output and the option `noise_output`, and, when the estimate output is read, a
NOISE_ESTIMATE step after it that copies the state into that tensor (`noise_estimate_op`).
Shifts TFLite Micro's C++ leaves undefined (32 or more bits of a uint32, 64 or more of a uint64) are
refused, as is a tensor whose length is not num_channels (its kernel would read or write past it).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..codegen.params.signal import emit_spectral_subtraction
from ..graph import Graph, Op
from .common import require
from .signal_common import check_tensor, io_tensors, signal_options
from .spec import OpSpec

KIND = "SignalFilterBankSpectralSubtraction"
OPTIONS = {"alternate_one_minus_smoothing": "int", "alternate_smoothing": "int", "clamping": "bool",
           "min_signal_remaining": "int", "num_channels": "int", "one_minus_smoothing": "int", "smoothing": "int",
           "smoothing_bits": "int", "spectral_subtraction_bits": "int"}


@dataclass(frozen=True, eq=False)
class SpectralSubtractionParams:
    num_channels: int
    smoothing: int  # uint32 (the options' int32 as TFLite Micro's config holds it)
    one_minus_smoothing: int
    alternate_smoothing: int
    alternate_one_minus_smoothing: int
    min_signal_remaining: int
    smoothing_bits: int
    spectral_subtraction_bits: int
    clamping: bool
    state: int  # the noise estimate output: its tensor index keys the estimate's bytes in the state region


def noise_state(op: Op) -> int:
    """The tensor index that keys the op's estimate in the state region: its noise estimate output."""
    return op.options["noise_output"] if "noise_output" in op.options else op.outputs[1]


def prepare(graph: Graph, op: Op) -> SpectralSubtractionParams | NoiseEstimateParams:
    if "noise_copy" in op.options:
        return NoiseEstimateParams(num_channels=graph.tensors[op.outputs[0]].num_elements, state=noise_state(op))
    if "noise_output" in op.options:  # split by the passes: the estimate output is written by its own step
        (x,), (out,) = io_tensors(graph, op, 1, 1)
        noise = graph.tensors[op.options["noise_output"]]
    else:
        (x,), (out, noise) = io_tensors(graph, op, 1, 2)
    o = signal_options(op, OPTIONS)
    check_tensor(op, x, "input", "uint32")
    check_tensor(op, out, "output", "uint32")
    check_tensor(op, noise, "noise estimate", "uint32")
    n = o["num_channels"]
    require(n >= 1, op, f"num_channels {n} is not positive")
    for what, t in (("input", x), ("output", out), ("noise estimate", noise)):
        require(t.num_elements == n, op, f"the {what} holds {t.num_elements} values, not num_channels {n}")
    require(0 <= o["smoothing_bits"] <= 31, op, f"smoothing_bits {o['smoothing_bits']} is outside 0..31")
    require(0 <= o["spectral_subtraction_bits"] <= 63, op,
            f"spectral_subtraction_bits {o['spectral_subtraction_bits']} is outside 0..63")
    as_uint32 = {k: v & 0xFFFFFFFF for k, v in o.items() if k not in ("clamping", "num_channels")}
    return SpectralSubtractionParams(num_channels=n, clamping=o["clamping"], state=noise_state(op),
                                     **as_uint32)


@dataclass(frozen=True, eq=False)
class NoiseEstimateParams:
    """The NOISE_ESTIMATE step: the estimate copied from the state region into its output tensor."""

    num_channels: int
    state: int
    step_kind: str = "NOISE_ESTIMATE"


def split_outputs(graph: Graph, op: Op) -> list[Op]:
    """The op writing its first output, then (if anything reads the estimate output) the copy of the
    estimate; the copy reads the first output, so that it runs after the op."""
    out, noise = op.outputs
    first = replace(op, outputs=(out,), options=op.options.with_values(noise_output=noise))
    read = graph.consumers(noise) or any(port.tensor == noise for port in graph.outputs)
    if not read:
        return [first]
    return [first, replace(op, inputs=(out,), outputs=(noise,),
                           options=op.options.with_values(noise_output=noise, noise_copy=True))]


SPEC = OpSpec(KIND, kind_id=56, emit=emit_spectral_subtraction, prepare=prepare,
              c_kernel="vmcu_signal_filter_bank_spectral_subtraction", arity=((1, 1), 2, frozenset()), custom=True,
              scratch=lambda p: 8 * p.num_channels + 3,
              activation_types=frozenset({"uint32"}))
