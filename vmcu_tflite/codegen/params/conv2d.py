"""vmcu_conv_params from Conv2DParams."""
from __future__ import annotations

import numpy as np

from ...kernels.conv import filter_pitch
from ...kernels.offset import kernel_bias
from ...kernels.requant import bias_ctype
from .common import requant, struct


def emit(step, graph, writer, name):
    p = step.params
    rows = p.filter.reshape(p.filter.shape[0], -1)  # one row per output channel, padded as the kernel reads it
    filt = writer.array("int8_t", f"{name}_filter", np.pad(rows, ((0, 0), (0, filter_pitch(p) - rows.shape[1]))))
    table = kernel_bias(p)  # the input offset folded in where the kernel's dot products leave it out
    bias = writer.array(bias_ctype(table), f"{name}_bias", table)
    return "vmcu_conv_params", struct(input_offset=p.input_offset, output_offset=p.output_offset, filter=filt, bias=bias,
                                     requant=requant(writer, name, p.requant))
