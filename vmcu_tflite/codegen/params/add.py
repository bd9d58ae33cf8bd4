"""vmcu_elementwise_params from AddParams; `broadcast` also serves MUL.

The broadcast is described by the output shape and each operand's element stride along every
output dimension (0 where the operand is broadcast). Dimensions of size 1 are dropped and
neighbouring dimensions both operands walk contiguously (or both repeat) are merged, so the
kernel's innermost runs are as long as possible.
"""
from __future__ import annotations

import numpy as np

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
    """The shape and operand fields of vmcu_elementwise_params (rank .. constant2_size): a constant's
    length lets the runtime check that the walk stays inside it."""
    shapes = operand_shapes(step, graph, p.constants)
    walk, (strides1, strides2) = broadcast_strides(p.output_shape, shapes)
    constants = [writer.array("int8_t", f"{name}_operand{i + 1}", c) if c is not None else "0"
                 for i, c in enumerate(p.constants)]
    sizes = [int(np.size(c)) if c is not None else 0 for c in p.constants]
    return dict(rank=len(walk), dims=int_array(walk), strides1=int_array(strides1), strides2=int_array(strides2),
                constant1=constants[0], constant2=constants[1], constant1_size=sizes[0], constant2_size=sizes[1])


def scaled_inputs(offset: int, left_shift: int, multiplier: int, shift: int) -> list[int]:
    """TFLite's scaled ADD input for each int8 value -128..127: MultiplyByQuantizedMultiplier-
    SmallerThanOneExp((value + offset) << left_shift, multiplier, shift), the rounding doubling
    high multiply then the rounding right shift by -shift (or a left shift for a shift above 0)."""
    values = []
    for value in range(-128, 128):
        x = (value + offset) * (1 << left_shift) * (1 << max(shift, 0))
        if x == multiplier == -(1 << 31):
            high = (1 << 31) - 1
        else:
            product = x * multiplier
            nudged = product + ((1 << 30) if product >= 0 else 1 - (1 << 30))
            high = abs(nudged) >> 31 if nudged >= 0 else -(abs(nudged) >> 31)  # C's division by 2^31
        exponent = max(-shift, 0)
        mask = (1 << exponent) - 1
        threshold = (mask >> 1) + (1 if high < 0 else 0)
        values.append((high >> exponent) + (1 if (high & mask) > threshold else 0))
    return values


def arith(p, writer=None, name: str = "") -> str:
    """A vmcu_binary_arith initializer: the offsets, scaling and clamp of an ADD (or SUB), and with a
    `writer` each input's scaled values as a table of its 256 int8 values (`scaled_inputs`:
    vmcu_add_s8_run's two loads per element instead of two offsets, shifts, multiplies and rounding
    shifts; 2 KiB of flash per ADD)."""
    tables = [writer.array("int32_t", f"{name}_scaled{i}", scaled_inputs(offset, p.left_shift, m, s))
              for i, (offset, m, s) in enumerate(((p.input1_offset, p.input1_multiplier, p.input1_shift),
                                                  (p.input2_offset, p.input2_multiplier, p.input2_shift)), 1)
              ] if writer is not None else ["0", "0"]
    return struct(input1_offset=p.input1_offset, input2_offset=p.input2_offset, output_offset=p.output_offset,
                  left_shift=p.left_shift, input1_multiplier=c_number(p.input1_multiplier), input1_shift=p.input1_shift,
                  input2_multiplier=c_number(p.input2_multiplier), input2_shift=p.input2_shift,
                  output_multiplier=c_number(p.output_multiplier), output_shift=p.output_shift,
                  act_min=p.act_min, act_max=p.act_max, input1_scaled=tables[0], input2_scaled=tables[1])


def emit(step, graph, writer, name):
    p = step.params
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, p), arith=arith(p, writer, name))


def emit_sub(step, graph, writer, name):
    """SUB's params: ADD's without the tables (its kernel scales each element)."""
    p = step.params
    return "vmcu_elementwise_params", struct(**broadcast(step, graph, writer, name, p), arith=arith(p))
