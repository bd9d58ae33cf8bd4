"""L2_NORMALIZATION: each row of the last dimension divided by its L2 norm, int8 on the 1/128
grid (TFLite Micro does not look at the output's quantization), up to 4-D, no fused activation.
It streams like SOFTMAX: one row per output segment."""
from __future__ import annotations

from dataclasses import dataclass

from ..codegen.params.l2_normalization import emit
from ..graph import Graph, Op
from .common import require
from .softmax import softmax_access
from .spec import ONE_INPUT, OpSpec
from .unary import unary_tensors

KIND = "L2_NORMALIZATION"
MAX_RANK = 4


@dataclass(frozen=True)
class L2NormalizationParams:
    input_zero_point: int


def prepare(graph: Graph, op: Op) -> L2NormalizationParams:
    input_, _ = unary_tensors(graph, op)
    require(1 <= len(input_.shape) <= MAX_RANK, op, f"{len(input_.shape)}-D input is not supported (1-D to 4-D)")
    require(op.options.fused_activation_function == 0, op, "a fused activation is not supported")
    return L2NormalizationParams(input_zero_point=input_.zero_point)


SPEC = OpSpec(KIND, kind_id=33, emit=emit, prepare=prepare, c_kernel="vmcu_l2_normalization_s8", access=softmax_access,
              arity=ONE_INPUT, options="L2NormOptions")
