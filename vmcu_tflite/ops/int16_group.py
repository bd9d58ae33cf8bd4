"""INT16_GROUP: not a TFLite op but the step kind grouping makes of consecutive int16 element-wise
steps (INT16_SIGMOID, INT16_UNARY, INT16_BINARY over same-shaped tensors, `vmcu_tflite/grouping.py`).

Apart, each of those steps walks the whole tensor before the next starts, so a tensor several of
them read (the input of LOGISTIC, TANH and a MUL) stays in the pool beside every result made in
between. As one step, the elements are walked in blocks of `block`: for each block the members run
in order, each on that block only, reading the group's external inputs straight from the pool and
the values made inside the group from small block buffers (the step's workspace, in the pool); the
last member writes the group's output. Intermediates read only inside the group never reach the
pool.

Every member keeps the params its single step prepared (the same multipliers and tables), and the
C calls the same element routines the single kernels run, on block pointers. The step reads input
element i (for the last time) before it writes output element i, as a single element-wise step
does: its output may land on the consumed bytes of an external input (`element_by_element`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..codegen.params.int16_group import emit
from ..planner.access import elementwise
from .spec import OpSpec

KIND = "INT16_GROUP"
MEMBER_KINDS = ("INT16_SIGMOID", "INT16_UNARY", "INT16_BINARY")  # the runtime's member kinds, in this order
MAX_MEMBERS = 16  # VMCU_GROUP_MAX_MEMBERS
BLOCK = 32  # elements per block: each member is one call per block (fewer calls) or the workspace grows


@dataclass(frozen=True, eq=False)
class GroupMember:
    """One element-wise step of the group, as it was prepared alone."""

    kind: str  # one of MEMBER_KINDS
    params: Any  # its own Int16SigmoidParams, Int16UnaryParams or Int16BinaryParams
    inputs: tuple[int, ...]  # its tensors in the model (the emitters read their shapes)
    output: int
    sources: tuple[int, ...]  # per operand: a block buffer (>= 0), or external input k as -1 - k
    result: int  # the block buffer it writes, -1: the group's output (the last member)


@dataclass(frozen=True, eq=False)
class Int16GroupParams:
    size: int  # elements of every tensor the group touches
    members: tuple[GroupMember, ...]
    buffers: int  # block buffers in the workspace
    block: int = BLOCK

    @property
    def workspace_bytes(self) -> int:
        """The block buffers, int16 each, one after another."""
        return self.buffers * self.block * 2


def group_access(graph, step, position: int, segment: int):
    """Element i of every external input is read (for the last time) before output element i is
    written, whatever the planner's segment; the step never reads an output element."""
    x, y = graph.tensors[step.inputs[position]], graph.tensors[step.outputs[0]]
    return elementwise(y.num_bytes, 2) if x.shape == y.shape else None


SPEC = OpSpec(KIND, kind_id=95, emit=emit, c_kernel="vmcu_group_s16", access=group_access)
