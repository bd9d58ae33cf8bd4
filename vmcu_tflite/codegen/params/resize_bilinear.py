"""vmcu_resize_bilinear_params from ResizeBilinearParams: the row and column tables in flash."""
from __future__ import annotations

from .common import dims, struct


def emit(step, graph, writer, name):
    p = step.params
    rows = writer.array("int32_t", f"{name}_rows", p.rows.reshape(-1))
    cols = writer.array("int32_t", f"{name}_cols", p.cols.reshape(-1))
    return "vmcu_resize_bilinear_params", struct(input=dims(graph.tensors[step.inputs[0]].shape),
                                                 output=dims(p.output_shape), rows=rows, cols=cols)
