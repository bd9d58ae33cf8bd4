"""vmcu_resize_params from ResizeNearestNeighborParams."""
from __future__ import annotations

from .common import dims, struct


def emit(step, graph, writer, name):
    p = step.params
    in_shape = graph.tensors[step.inputs[0]].shape
    rows = writer.array("int32_t", f"{name}_source_y", p.rows)
    cols = writer.array("int32_t", f"{name}_source_x", p.cols)
    return "vmcu_resize_params", struct(input=dims(in_shape), output=dims(p.output_shape), source_y=rows,
                                        source_x=cols)
