"""vmcu_batch_matmul_params from BatchMatMulParams: 5-D operand shapes, offsets, the output scale."""
from __future__ import annotations

from .common import int_array, struct


def emit(step, graph, writer, name):
    p = step.params
    lhs = writer.array("int8_t", f"{name}_lhs", p.lhs_constant) if p.lhs_constant is not None else "0"
    rhs = writer.array("int8_t", f"{name}_rhs", p.rhs_constant) if p.rhs_constant is not None else "0"
    return "vmcu_batch_matmul_params", struct(
        lhs_dims=int_array(p.lhs_shape, 5), rhs_dims=int_array(p.rhs_shape, 5), adj_x=int(p.adj_x),
        adj_y=int(p.adj_y), lhs_offset=-p.lhs_zero_point, rhs_offset=-p.rhs_zero_point,
        output_offset=p.output_zero_point, output_multiplier=p.multiplier, output_shift=p.shift,
        lhs_constant=lhs, rhs_constant=rhs)


def emit_s16(step, graph, writer, name):
    """vmcu_batch_matmul_s16_params: the same shapes, int16 constants, no offsets (zero points are 0)."""
    p = step.params
    lhs = writer.array("int16_t", f"{name}_lhs", p.lhs_constant) if p.lhs_constant is not None else "0"
    rhs = writer.array("int16_t", f"{name}_rhs", p.rhs_constant) if p.rhs_constant is not None else "0"
    return "vmcu_batch_matmul_s16_params", struct(
        lhs_dims=int_array(p.lhs_shape, 5), rhs_dims=int_array(p.rhs_shape, 5), adj_x=int(p.adj_x),
        adj_y=int(p.adj_y), output_multiplier=p.multiplier, output_shift=p.shift, lhs_constant=lhs, rhs_constant=rhs)
