"""vmcu_elementwise_params from AddParams; `broadcast` also serves MUL.

The broadcast is described by the output shape and each operand's element stride along every
output dimension (0 where the operand is broadcast). Dimensions of size 1 are dropped and
neighbouring dimensions both operands walk contiguously (or both repeat) are merged, so the
kernel's innermost runs are as long as possible.
"""
from __future__ import annotations

from ..cwriter import c_number
from .common import MAX_DIMS, int_array, operand_shapes, row_major_strides, struct


def broadcast_strides(out_shape, operand_shapes_):
    """(dims, [strides per operand]) of the merged broadcast walk."""
    rank = max([len(out_shape)] + [len(s) for s in operand_shapes_])
    out = (1,) * (rank - len(out_shape)) + tuple(int(d) for d in out_shape)
    strides = []
    for shape in operand_shapes_:
        shape = (1,) * (rank - len(shape)) + tuple(int(d) for d in shape)
        strides.append([0 if d == 1 else s for d, s in zip(shape, row_major_strides(shape))])
    merged_dims: list[int] = []
    merged: list[list[int]] = [[] for _ in strides]
    for axis, size in enumerate(out):
        if size == 1:
            continue
        if merged_dims and all(m[-1] == s[axis] * size for m, s in zip(merged, strides)):
            merged_dims[-1] *= size  # the outer dimension continues this one for every operand
            for m, s in zip(merged, strides):
                m[-1] = s[axis]
            continue
        merged_dims.append(size)
        for m, s in zip(merged, strides):
            m.append(s[axis])
    if not merged_dims:
        merged_dims, merged = [1], [[0] for _ in strides]
    if len(merged_dims) > MAX_DIMS:
        raise ValueError(f"a broadcast over {len(merged_dims)} dimensions (the runtime walks {MAX_DIMS})")
    return merged_dims, merged


def broadcast(step, graph, writer, name, p) -> dict[str, str]:
    """The shape and operand fields of vmcu_elementwise_params (rank .. constant2)."""
    shapes = operand_shapes(step, graph, p.constants)
    walk, (strides1, strides2) = broadcast_strides(p.output_shape, shapes)
    constants = [writer.array("int8_t", f"{name}_operand{i + 1}", c) if c is not None else "0"
                 for i, c in enumerate(p.constants)]
    return dict(rank=len(walk), dims=int_array(walk), strides1=int_array(strides1), strides2=int_array(strides2),
                constant1=constants[0], constant2=constants[1])


def arith(p) -> str:
    """A vmcu_binary_arith initializer: the ADD's offsets, scaling and clamp."""
    return struct(input1_offset=p.input1_offset, input2_offset=p.input2_offset, output_offset=p.output_offset,
                  left_shift=p.left_shift, input1_multiplier=c_number(p.input1_multiplier), input1_shift=p.input1_shift,
                  input2_multiplier=c_number(p.input2_multiplier), input2_shift=p.input2_shift,
                  output_multiplier=c_number(p.output_multiplier), output_shift=p.output_shift,
                  act_min=p.act_min, act_max=p.act_max)


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, p), arith=arith(p))
