"""vmcu_lookup_params for the int8 functions of one input: the output of each of the 256 input
bytes, computed by the op's reference kernel (TFLite's arithmetic) and stored in flash.

The table is in the order of the input byte read as uint8_t (0..127, then -128..-1), so the C
indexes it with the byte itself. The values are checked against TFLite Micro over all 256 inputs
(tests/ops); the interpreter then checks the step's bytes like any other step's.
"""
from __future__ import annotations

import numpy as np

from vmcu_reference.ops import make_kernel

from .common import struct

BYTES = np.arange(256, dtype=np.uint8).view(np.int8)


def table(kind: str, params) -> np.ndarray:
    return make_kernel(kind, params).run(BYTES)


def emit(step, graph, writer, name):
    size = graph.tensors[step.outputs[0]].num_elements
    values = writer.array("int8_t", f"{name}_table", table(step.kernel, step.params))
    return "vmcu_lookup_params", struct(size=size, table=values)
