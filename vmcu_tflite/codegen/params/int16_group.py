"""vmcu_group_s16_params from Int16GroupParams: each member as a vmcu_group_member pointing, by the
pointer of its kind, to the params struct its single step emits (the same emitter, so the same
multipliers and tables), with its operands' sources and its result's block buffer; a table of
pointers to the members, in order."""
from __future__ import annotations

from ...steps import Step
from . import int16_binary, int16_sigmoid, int16_unary
from .common import struct

EMITTERS = {"INT16_SIGMOID": int16_sigmoid.emit, "INT16_UNARY": int16_unary.emit, "INT16_BINARY": int16_binary.emit}


def emit(step, graph, writer, name):
    from ...ops.int16_group import MEMBER_KINDS

    p = step.params
    members = []
    for j, m in enumerate(p.members):
        alone = Step(index=step.index, kernel=m.kind, ops=(), inputs=m.inputs, outputs=(m.output,), params=m.params,
                     macs=0)
        ctype, init = EMITTERS[m.kind](alone, graph, writer, f"{name}_{j}")
        own = writer.struct(ctype, f"{name}_{j}", init)
        sources = list(m.sources) + [0] * (2 - len(m.sources))
        kinds = {kind: f"&{own}" if kind == m.kind else "0" for kind in MEMBER_KINDS}
        member = struct(sigmoid=kinds["INT16_SIGMOID"], unary=kinds["INT16_UNARY"], binary=kinds["INT16_BINARY"],
                        sources="{" + ", ".join(map(str, sources)) + "}", result=m.result)
        members.append("&" + writer.struct("vmcu_group_member", f"{name}_member{j}", member))
    table = writer.pointers("const vmcu_group_member *", f"{name}_members", members)
    return "vmcu_group_s16_params", struct(size=p.size, block=p.block, num_members=len(p.members),
                                           num_buffers=p.buffers, members=table)
