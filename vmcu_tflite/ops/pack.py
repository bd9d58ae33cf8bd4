"""PACK: activations of one shape stacked along a new axis (`tf.stack`; an unrolled recurrent
layer's outputs joined into a sequence).

TFLite Micro has no Prepare for it: its Eval copies each input's rows into the output as they are
(no requantization, whatever the scales say), walking `values_count` inputs. So `values_count`
must be the number of inputs, and each input the output's shape without the axis: anything else
would have TFLite Micro read outside a tensor. The axis counts from the output's rank.

That is a CONCATENATION along the new axis, each input contributing rows of size 1 there: the
params, the planner's access pattern and the runtime kernel are CONCATENATION's.
"""
from __future__ import annotations

from ..codegen.params.concatenation import MAX_OPERANDS, emit
from ..graph import Graph, Op
from .common import constant_inputs, output, require, tensor
from .concatenation import ConcatenationParams, concatenation_access
from .spec import OpSpec

KIND = "PACK"


def prepare(graph: Graph, op: Op) -> ConcatenationParams:
    out = output(graph, op)
    inputs = [tensor(graph, op, i) for i in range(len(op.inputs))]
    require(all(t is not None for t in inputs), op, "an input is missing")
    require(len(inputs) <= MAX_OPERANDS, op, f"{len(inputs)} inputs; the runtime joins at most {MAX_OPERANDS}")
    require(op.options.values_count == len(inputs), op,
            f"packs {op.options.values_count} values but has {len(inputs)} inputs")
    for name, t in [*((f"input {i}", t) for i, t in enumerate(inputs)), ("output", out)]:
        require(t.dtype in ("int8", "int16") and t.dtype == out.dtype, op,
                f"{name} type {t.dtype} is not supported (int8 or int16, the output's)")
    rank = len(out.shape)
    axis = op.options.axis
    require(rank >= 1 and -rank <= axis < rank, op, f"axis {axis} is out of range for a {rank}-D output")
    axis %= rank
    require(out.shape[axis] == len(inputs), op,
            f"output shape {out.shape} does not hold {len(inputs)} values along axis {axis}")
    kept = out.shape[:axis] + out.shape[axis + 1:]
    for i, t in enumerate(inputs):
        require(t.shape == kept, op, f"input {i} shape {t.shape} is not the output's {out.shape} without axis {axis}")
    return ConcatenationParams(axis=axis, output_shape=out.shape, constants=constant_inputs(graph, op),
                               dtype=out.dtype)


SPEC = OpSpec(KIND, kind_id=40, emit=emit, prepare=prepare, c_kernel="vmcu_concatenation_s8",
              access=concatenation_access, arity=((1, 1 << 30), 1, frozenset()), options="PackOptions",
              activation_types=frozenset({"int16"}))
