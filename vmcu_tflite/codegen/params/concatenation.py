"""vmcu_concatenation_params from ConcatenationParams."""
from __future__ import annotations

import numpy as np

from .common import int_array, operand_shapes, struct

MAX_OPERANDS = 10  # VMCU_MAX_STEP_INPUTS


def emit(step, graph, writer, name):
    p = step.params
    shapes = operand_shapes(step, graph, p.constants)
    size = np.dtype(p.dtype).itemsize  # the kernel copies bytes: rows and constants in bytes
    outer = int(np.prod(p.output_shape[:p.axis], dtype=np.int64))
    inner = [int(np.prod(s[p.axis:], dtype=np.int64)) * size for s in shapes]
    little = np.dtype(p.dtype).newbyteorder("<")
    constants = [writer.array("int8_t", f"{name}_operand{i}",
                              np.ascontiguousarray(c, dtype=little).reshape(-1).view(np.int8))
                 if c is not None else "0" for i, c in enumerate(p.constants)]
    constants += ["0"] * (MAX_OPERANDS - len(constants))
    return "vmcu_concatenation_params", struct(outer=outer, num_operands=len(shapes),
                                               inner=int_array(inner, MAX_OPERANDS),
                                               constants=f"{{{', '.join(constants)}}}")
