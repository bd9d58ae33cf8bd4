/*
 * BATCH_MATMUL, int8 (TFLite Micro's reference kernel's arithmetic): per output batch index, the
 * operands' matching batch (a dimension of 1 repeats), out[m][n] = requantize(sum over k of
 * (L[m][k] + lhs_offset) * (R[k][n] + rhs_offset)) + output_offset, saturated to int8. L is the
 * left operand read transposed when adj_x, R the right one when adj_y. Whole tensor: the output is
 * kept apart from the operands, written in row-major order; sums wrap in 32 bits.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static int8_t operand(const int8_t *constant, const vmcu_view *view, uint32_t at)
{
    return constant != 0 ? constant[at] : vmcu_get(view, at);
}

static uint32_t batch_base(const int32_t *dims, const int32_t *batch)
{
    uint32_t base = 0u;
    int32_t d;
    for (d = 0; d < 3; ++d) {
        base = base * (uint32_t)dims[d] + (dims[d] == 1 ? 0u : (uint32_t)batch[d]);
    }
    return base * (uint32_t)dims[3] * (uint32_t)dims[4];
}

vmcu_status vmcu_batch_matmul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                 const vmcu_view *output)
{
    const vmcu_batch_matmul_params *p = (const vmcu_batch_matmul_params *)params;
    const vmcu_view *lhs = p->lhs_constant != 0 ? (const vmcu_view *)0 : &inputs[0];
    const vmcu_view *rhs = p->rhs_constant != 0 ? (const vmcu_view *)0 : &inputs[p->lhs_constant != 0 ? 0 : 1];
    const int32_t rows = p->adj_x ? p->lhs_dims[4] : p->lhs_dims[3];
    const int32_t depth = p->adj_x ? p->lhs_dims[3] : p->lhs_dims[4];
    const int32_t cols = p->adj_y ? p->rhs_dims[3] : p->rhs_dims[4];
    int32_t batch[3], m, n, k;
    uint32_t out = 0u;
    (void)ctx;
    for (batch[0] = 0; batch[0] < vmcu_max(p->lhs_dims[0], p->rhs_dims[0]); ++batch[0]) {
        for (batch[1] = 0; batch[1] < vmcu_max(p->lhs_dims[1], p->rhs_dims[1]); ++batch[1]) {
            for (batch[2] = 0; batch[2] < vmcu_max(p->lhs_dims[2], p->rhs_dims[2]); ++batch[2]) {
                const uint32_t lhs_base = batch_base(p->lhs_dims, batch), rhs_base = batch_base(p->rhs_dims, batch);
                for (m = 0; m < rows; ++m) {
                    for (n = 0; n < cols; ++n) {
                        uint32_t acc = 0u;
                        for (k = 0; k < depth; ++k) {
                            const uint32_t l = lhs_base + (uint32_t)(p->adj_x ? k * p->lhs_dims[4] + m
                                                                               : m * p->lhs_dims[4] + k);
                            const uint32_t r = rhs_base + (uint32_t)(p->adj_y ? n * p->rhs_dims[4] + k
                                                                               : k * p->rhs_dims[4] + n);
                            acc += (uint32_t)((operand(p->lhs_constant, lhs, l) + p->lhs_offset) *
                                              (operand(p->rhs_constant, rhs, r) + p->rhs_offset));
                        }
                        vmcu_put(output, out++,
                                 (int8_t)vmcu_sat8(vmcu_requantize((int32_t)acc, p->output_multiplier,
                                                                   p->output_shift) + p->output_offset));
                    }
                }
            }
        }
    }
    return VMCU_OK;
}

/* Shapes whose batch dimensions broadcast and whose summed dimensions agree; each operand's
 * bytes its input's (or its constant's); the output the product's; offsets of int8 zero points. */
static vmcu_status batch_matmul_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_batch_matmul_params *p = (const vmcu_batch_matmul_params *)step->params;
    const uint32_t lhs_bytes = vmcu_product(p->lhs_dims, 5), rhs_bytes = vmcu_product(p->rhs_dims, 5);
    const uint32_t activations = (p->lhs_constant == 0 ? 1u : 0u) + (p->rhs_constant == 0 ? 1u : 0u);
    int32_t dims[5], d;
    if (lhs_bytes == 0u || rhs_bytes == 0u || step->output == VMCU_NO_OUTPUT || step->num_inputs != activations ||
        activations == 0u || (p->adj_x != 0 && p->adj_x != 1) || (p->adj_y != 0 && p->adj_y != 1)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < 3; ++d) {
        if (p->lhs_dims[d] != p->rhs_dims[d] && p->lhs_dims[d] != 1 && p->rhs_dims[d] != 1) {
            return VMCU_ERROR_BAD_MODEL;
        }
        dims[d] = vmcu_max(p->lhs_dims[d], p->rhs_dims[d]);
    }
    dims[3] = p->adj_x ? p->lhs_dims[4] : p->lhs_dims[3];
    dims[4] = p->adj_y ? p->rhs_dims[3] : p->rhs_dims[4];
    if ((p->adj_x ? p->lhs_dims[3] : p->lhs_dims[4]) != (p->adj_y ? p->rhs_dims[4] : p->rhs_dims[3]) ||
        vmcu_product(dims, 5) == 0u || vmcu_product(dims, 5) != vmcu_output_bytes(model, step) ||
        (p->lhs_constant == 0 && vmcu_input_bytes(model, step, 0u) != lhs_bytes) ||
        (p->rhs_constant == 0 && vmcu_input_bytes(model, step, p->lhs_constant == 0 ? 1u : 0u) != rhs_bytes) ||
        !vmcu_in_range(p->lhs_offset, -127, 128) || !vmcu_in_range(p->rhs_offset, -127, 128) ||
        !vmcu_in_range(p->output_offset, -128, 127) || !vmcu_in_range(p->output_shift, -31, 30)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t batch_matmul_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_batch_matmul_params *p = (const vmcu_batch_matmul_params *)step->params;
    const int32_t fields[7] = {p->adj_x, p->adj_y, p->lhs_offset, p->rhs_offset, p->output_offset,
                               p->output_multiplier, p->output_shift};
    crc = vmcu_crc32_i32s(crc, p->lhs_dims, 5u);
    crc = vmcu_crc32_i32s(crc, p->rhs_dims, 5u);
    crc = vmcu_crc32_i32s(crc, fields, 7u);
    if (p->lhs_constant != 0) {
        crc = vmcu_crc32(crc, p->lhs_constant, vmcu_product(p->lhs_dims, 5));
    }
    return p->rhs_constant != 0 ? vmcu_crc32(crc, p->rhs_constant, vmcu_product(p->rhs_dims, 5)) : crc;
}

const vmcu_kernel vmcu_batch_matmul_s8_kernel = {.run = vmcu_batch_matmul_s8, .check = batch_matmul_check,
                                                 .digest = batch_matmul_digest};
