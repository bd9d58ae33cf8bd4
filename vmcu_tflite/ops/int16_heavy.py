"""What the 16x8 forms of the heavy layers (FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D) share.

A "16x8" model (the converter's EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8) keeps
its activations in int16 with zero point 0 and its weights in symmetric int8. TFLite Micro's Prepare
accepts such a layer with an int64 bias (the converter's default), an int32 bias (a recent converter's
option) or none, and its Eval accumulates in the bias's type: int64 with the 64-bit form of
MultiplyByQuantizedMultiplier (the multiplier rounded to 16 bits), int32 with the 32-bit form the
int8 layers use. These helpers check the tensors as that Prepare does and compute the clamp of the
fused activation in the int16 domain; everything else (multipliers per channel or per tensor) is the
int8 layers' own arithmetic on the same scales.
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph, Op, Tensor
from ..quant import ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1, quantize
from .common import Requantization, output_multiplier, require, tensor

INT16_MIN, INT16_MAX = -32768, 32767


def is_int16(graph: Graph, op: Op) -> bool:
    """Whether the op's first input is an int16 activation (the 16x8 form)."""
    first = tensor(graph, op, 0)
    return first is not None and first.dtype == "int16"


def check_activations(op: Op, input_: Tensor, out: Tensor) -> None:
    """Input and output int16 with zero point 0, as TFLite Micro's Prepare requires."""
    for name, t in (("input", input_), ("output", out)):
        require(t.dtype == "int16" and t.quant is not None, op,
                f"the {name} of a 16x8 layer must be quantized int16, not {t.dtype}")
        require(all(z == 0 for z in t.quant.zero_point), op, f"the int16 {name}'s zero point must be 0")


def check_filter(op: Op, filter_: Tensor | None) -> None:
    require(filter_ is not None and filter_.is_constant and filter_.dtype == "int8" and filter_.quant is not None,
            op, "the filter of a 16x8 layer must be a constant quantized int8 tensor")
    require(all(z == 0 for z in filter_.quant.zero_point), op, "filter zero points must be 0")


def bias16(graph: Graph, op: Op, position: int, channels: int, int32_ok: bool = True,
           declared: int = 0) -> tuple[np.ndarray, bool]:
    """(bias as int64 values, wide): wide where the layer accumulates in int64, which TFLite Micro's
    Eval does for an int64 bias and for none (checked against it: without a bias its int64 kernel's
    rounded multiplier shows); an int32 bias takes its int32 accumulator and 32-bit requantization
    where TFLite Micro's kernel has that form (`int32_ok`: not DEPTHWISE_CONV_2D's, which reads the
    bias as int64 whatever its type). `declared`: the op's quantized_bias_type option (0: unset), which
    the bias must match."""
    bias = tensor(graph, op, position)
    if bias is None:
        return np.zeros(channels, dtype=np.int64), True
    require(bias.is_constant and bias.dtype in ("int64", "int32"), op,
            f"the bias of a 16x8 layer must be a constant int64 or int32 tensor, not {bias.dtype}")
    require(bias.num_elements == channels, op, f"bias has {bias.num_elements} values for {channels} channels")
    named = {0: None, 2: "int32", 4: "int64"}.get(declared, "other")
    require(named in (None, bias.dtype), op, f"the bias is {bias.dtype}, its options' quantized_bias_type says {named}")
    require(int32_ok or bias.dtype == "int64", op, "the bias of a 16x8 layer of this kind must be int64 (TFLite "
                                                   "Micro reads any other as int64)")
    return bias.data.reshape(-1).astype(np.int64), bias.dtype == "int64"


def activation_range16(op: Op, out: Tensor) -> tuple[int, int]:
    """The fused activation's clamp in the int16 domain (CalculateActivationRangeQuantized for int16)."""
    act = op.options.fused_activation_function
    require(act in (ACT_NONE, ACT_RELU, ACT_RELU6, ACT_RELU_N1_TO_1), op, f"fused activation {act} is not supported")
    try:
        if act == ACT_NONE:
            return INT16_MIN, INT16_MAX
        if act == ACT_RELU:
            return max(INT16_MIN, quantize(0.0, out.scale, 0)), INT16_MAX
        lo, hi = (0.0, 6.0) if act == ACT_RELU6 else (-1.0, 1.0)
        return max(INT16_MIN, quantize(lo, out.scale, 0)), min(INT16_MAX, quantize(hi, out.scale, 0))
    except ValueError:
        require(False, op, f"output scale {out.scale:g} is too small for its fused activation's bounds")


def requantization16(op: Op, input_: Tensor, filter_: Tensor, out: Tensor, channels: int,
                     per_tensor_real: float | None = None) -> Requantization:
    """Per-channel multipliers (PopulateConvolutionQuantizationParams) or, with `per_tensor_real`, one
    for every channel, and the int16 clamp."""
    if per_tensor_real is not None:
        pairs = [output_multiplier(op, per_tensor_real)] * channels
    else:
        scales = filter_.quant.scale
        require(len(scales) in (1, channels), op, f"{len(scales)} filter scales for {channels} channels")
        pairs = [output_multiplier(op, input_.scale * scales[c if len(scales) > 1 else 0] / out.scale)
                 for c in range(channels)]
    act_min, act_max = activation_range16(op, out)
    return Requantization(multiplier=tuple(m for m, _ in pairs), shift=tuple(s for _, s in pairs),
                          act_min=act_min, act_max=act_max)


WIDE_MAX_SHIFT = 14  # the 64-bit requantization shifts right by 15 - shift: at least 1


def check_wide_shifts(op: Op, requant: Requantization, wide: bool) -> None:
    """An int64-accumulating layer's rescale must shift right (TFLite's 64-bit form rounds at bit
    14 - shift, undefined past a left shift of 14)."""
    if wide:
        worst = max(requant.shift, default=0)
        require(worst <= WIDE_MAX_SHIFT, op, f"the rescale from input to output scale needs a left shift of "
                                             f"{worst}; the 16x8 int64 form applies at most {WIDE_MAX_SHIFT}")
