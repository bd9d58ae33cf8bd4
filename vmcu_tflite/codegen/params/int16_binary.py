"""vmcu_binary_s16_params from Int16BinaryParams: the operation, the merged broadcast walk
(`add.broadcast_strides`, in elements), any constant operand as an int16 array, and the arithmetic
as a vmcu_binary_arith without tables (`add.arith`)."""
from __future__ import annotations

import numpy as np

from .add import arith, broadcast_strides
from .common import int_array, operand_shapes, struct


def emit(step, graph, writer, name):
    from ...ops.int16_binary import OPERATIONS

    p = step.params
    walk, (strides1, strides2) = broadcast_strides(p.output_shape, operand_shapes(step, graph, p.constants))
    constants = [writer.array("int16_t", f"{name}_operand{i + 1}", c) if c is not None else "0"
                 for i, c in enumerate(p.constants)]
    sizes = [int(np.size(c)) if c is not None else 0 for c in p.constants]
    return "vmcu_binary_s16_params", struct(
        operation=OPERATIONS.index(p.operation), rank=len(walk), dims=int_array(walk), strides1=int_array(strides1),
        strides2=int_array(strides2), constant1=constants[0], constant2=constants[1], constant1_size=sizes[0],
        constant2_size=sizes[1], arith=arith(p))
