"""vmcu_l2_normalization_params from L2NormalizationParams (rows and depth from the output)."""
from __future__ import annotations

from .common import struct


def emit(step, graph, writer, name):
    out = graph.tensors[step.outputs[0]]
    depth = int(out.shape[-1])
    return "vmcu_l2_normalization_params", struct(rows=out.num_elements // depth, depth=depth,
                                                  input_zero_point=step.params.input_zero_point)
