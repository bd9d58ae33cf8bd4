"""vmcu_gather_params from GatherParams: the input as [outer, axis, inner] and the indices in flash."""
from __future__ import annotations

import numpy as np

from .common import struct


def emit(step, graph, writer, name):
    p = step.params
    outer = int(np.prod(p.input_shape[:p.axis], dtype=np.int64))
    inner = int(np.prod(p.input_shape[p.axis + 1:], dtype=np.int64))
    indices = writer.array("int32_t", f"{name}_indices", p.indices)
    return "vmcu_gather_params", struct(outer=outer, axis_size=p.input_shape[p.axis], inner=inner,
                                        count=len(p.indices), indices=indices)
