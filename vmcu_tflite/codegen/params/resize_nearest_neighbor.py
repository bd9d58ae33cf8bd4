"""vmcu_resize_params from ResizeNearestNeighborParams."""
from __future__ import annotations

import numpy as np

from .common import dims, struct


def emit(step, graph, writer, name):
    """The kernel copies each pixel's channels as bytes: an int16 tensor's channel count is given in
    bytes (twice its channels), which is also what its shape checks count."""
    p = step.params
    tensor = graph.tensors[step.inputs[0]]
    size = np.dtype(tensor.dtype).itemsize
    in_shape, out_shape = (*tensor.shape[:3], tensor.shape[3] * size), (*p.output_shape[:3], p.output_shape[3] * size)
    rows = writer.array("int32_t", f"{name}_source_y", p.rows)
    cols = writer.array("int32_t", f"{name}_source_x", p.cols)
    return "vmcu_resize_params", struct(input=dims(in_shape), output=dims(out_shape), source_y=rows,
                                        source_x=cols)
