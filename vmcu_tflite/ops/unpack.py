"""UNPACK: an activation cut along a constant axis into one tensor per index, the axis removed
(an unrolled recurrent layer's time steps, `tf.unstack`).

TFLite Micro has no Prepare for it: its Eval copies, for each output i, the input's rows at index i
of the axis, as they are (no requantization, whatever the outputs' scales say), walking `num`
outputs. So `num` must be the number of outputs and the axis's size, and each output the input's
shape without the axis: anything else would have TFLite Micro read or write outside a tensor.

The passes give each output its own op (`vmcu_tflite.passes.one_output_per_split`, with the
output's index as `split_begin`), and each part is a slice (`strided_slice.SliceParams`) of the
input seen as [outer, num, inner], so any rank fits the runtime's strided copy.
"""
from __future__ import annotations

import math

import numpy as np

from ..codegen.params.strided_copy import emit_slice
from ..graph import Graph, Op
from .common import output, require, tensor
from .spec import ONE_INPUT, OpSpec
from .strided_slice import SliceParams

KIND = "UNPACK"


def prepare(graph: Graph, op: Op) -> SliceParams:
    input_, out = tensor(graph, op, 0), output(graph, op)
    for name, t in (("input", input_), ("output", out)):
        require(t.dtype in ("int8", "int16") and t.dtype == input_.dtype, op,
                f"{name} type {t.dtype} is not supported (int8 or int16, the input's)")
    rank = len(input_.shape)
    axis = op.options.axis
    require(rank >= 1 and -rank <= axis < rank, op, f"axis {axis} is out of range for a {rank}-D input")
    axis %= rank
    require(len(op.outputs) == 1 and "split_begin" in op.options, op, "has not been split into parts")
    parts = op.options.unpack_outputs
    require(op.options.num == parts == input_.shape[axis], op,
            f"unpacks {op.options.num} values into {parts} outputs along axis {axis} of shape {input_.shape}; "
            "TFLite Micro writes num outputs of one index each")
    kept = input_.shape[:axis] + input_.shape[axis + 1:]
    require(out.shape == kept, op, f"output shape {out.shape} is not the input's {input_.shape} without axis {axis}")
    outer, inner = math.prod(input_.shape[:axis]), math.prod(input_.shape[axis + 1:])
    return SliceParams(input_shape=(outer, parts, inner), begin=(0, int(op.options.split_begin), 0), steps=(1, 1, 1),
                       counts=(outer, 1, inner), output_shape=out.shape,
                       element_bytes=np.dtype(input_.dtype).itemsize)


SPEC = OpSpec(KIND, kind_id=41, emit=emit_slice, prepare=prepare, c_kernel="vmcu_strided_copy_s8",
              arity=(ONE_INPUT[0], None, frozenset()), options="UnpackOptions", activation_types=frozenset({"int16"}))
