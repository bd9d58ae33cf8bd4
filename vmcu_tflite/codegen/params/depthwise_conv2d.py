"""vmcu_depthwise_params from DepthwiseConv2DParams."""
from __future__ import annotations

import numpy as np

from ...kernels.requant import bias_ctype, negate, requant_form, requant_form16
from .common import requant, struct


def emit(step, graph, writer, name):
    p = step.params
    if getattr(p, "element", 1) == 2:  # 16x8: no offsets, the bias as TFLite holds it, general requantization
        form = requant_form16(p.bias, p.wide)
        filt = writer.array("int8_t", f"{name}_filter", p.filter)
        bias = writer.array(form.bias, f"{name}_bias", p.bias)
        return "vmcu_depthwise_params", struct(input_offset=0, output_offset=0, filter=filt, bias=bias,
                                              requant=requant(writer, name, p.requant, form))
    form = requant_form(p.filter, p.bias, p.requant, -1)  # the kernel's: its tables' encoding
    taps = negate(p.filter, form, -1)
    if getattr(p, "int16_weights", False):  # lane-ordered int16 (kernels/ir.py), in words for the DSP path's loads
        words = np.ascontiguousarray(lane_order(taps), dtype="<i2").view("<i4")
        filt = writer.array("int32_t", f"{name}_filter", words)
    else:
        filt = writer.array("int8_t", f"{name}_filter", taps)
    bias = writer.array(bias_ctype(p.bias), f"{name}_bias", negate(p.bias, form, 0))
    return "vmcu_depthwise_params", struct(input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
                                          requant=requant(writer, name, p.requant, form))


def lane_order(taps: np.ndarray):
    """A depthwise filter's taps (channels last, a multiple of four) flattened, each group of four
    channels as SXTB16 splits a word: channels 0 and 2, then 1 and 3."""
    groups = taps.reshape(-1, 2, 2)  # [tap and group, channel pair j, member i]: channel 2j + i
    return groups.transpose(0, 2, 1).reshape(-1)
