"""vmcu_transpose_params from TransposeParams: the input stride of each output dimension."""
from __future__ import annotations

from .common import int_array, row_major_strides, struct

MAX_RANK = 5


def emit(step, graph, writer, name):
    p = step.params
    in_shape = graph.tensors[step.inputs[0]].shape
    in_strides = row_major_strides(in_shape)
    return "vmcu_transpose_params", struct(rank=len(p.perm), output_dims=int_array(p.output_shape, MAX_RANK),
                                           input_strides=int_array([in_strides[a] for a in p.perm], MAX_RANK))
