"""vmcu_conv_params from Conv2DParams."""
from __future__ import annotations

import numpy as np

from ...kernels.conv import filter_pitch, wide_filter
from ...kernels.offset import kernel_bias
from ...kernels.paired_weights import interleaved
from ...kernels.requant import bias_ctype, negate, requant_form, requant_form16
from .common import requant, struct


def emit(step, graph, writer, name):
    p = step.params
    if getattr(p, "element", 1) == 2:  # 16x8: no offsets, one row per channel, general requantization
        form = requant_form16(p.bias, p.wide)
        rows = p.filter.reshape(p.filter.shape[0], -1)
        if wide_filter(p):  # a gathered window: rows widened to int16 and padded to whole words, as the kernel reads
            rows = np.pad(rows.astype(np.int16), ((0, 0), (0, filter_pitch(p) - rows.shape[1])))
            filt = writer.array("int32_t", f"{name}_filter", np.ascontiguousarray(rows, dtype="<i2").view("<i4"))
        else:
            filt = writer.array("int8_t", f"{name}_filter", rows)
        bias = writer.array(form.bias, f"{name}_bias", p.bias)
        return "vmcu_conv_params", struct(input_offset=0, output_offset=0, filter=filt, bias=bias,
                                         requant=requant(writer, name, p.requant, form))
    table = kernel_bias(p)  # the input offset folded in where the kernel's dot products leave it out
    form = requant_form(p.filter, p.bias, p.requant, 0, table)  # the kernel's: its tables' encoding
    rows = negate(p.filter.reshape(p.filter.shape[0], -1), form, 0)  # one row per output channel, as the kernel reads it
    rows = np.pad(rows, ((0, 0), (0, filter_pitch(p) - rows.shape[1])))
    if getattr(p, "paired_weights", False):  # each channel pair's rows word by word, as the GEMM tile loads them
        rows = interleaved(rows)
    if wide_filter(p):  # int16 weights, two to a word: an int32 array keeps them word-aligned (LDRD)
        filt = writer.array("int32_t", f"{name}_filter", np.ascontiguousarray(rows, dtype="<i2").view("<i4"))
    else:
        filt = writer.array("int8_t", f"{name}_filter", rows)
    bias = writer.array(bias_ctype(table), f"{name}_bias", negate(table, form, 0))
    return "vmcu_conv_params", struct(input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
                                     requant=requant(writer, name, p.requant, form))
