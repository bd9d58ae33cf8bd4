"""vmcu_svdf_params from SvdfParams: the weights in flash, the state's place in the state region."""
from __future__ import annotations

from ...state import state_layout
from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    feature = writer.array("int8_t", f"{name}_weights_feature", p.weights_feature)
    time = writer.array("int16_t", f"{name}_weights_time", p.weights_time)
    bias = writer.array("int32_t", f"{name}_bias", p.bias)
    return "vmcu_svdf_params", struct(
        batch=p.batch, input_size=p.input_size, filters=p.filters, units=p.units, rank=p.rank, memory=p.memory,
        input_offset=-p.input_zero_point, output_offset=p.output_zero_point,
        feature_multiplier=p.feature_multiplier, feature_shift=p.feature_shift,
        output_multiplier=p.output_multiplier, output_shift=p.output_shift,
        state_offset=f"{state_layout(graph).offsets[p.state]}u", weights_feature=feature, weights_time=time, bias=bias)
