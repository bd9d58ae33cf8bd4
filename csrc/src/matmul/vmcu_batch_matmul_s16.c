/*
 * BATCH_MATMUL in 16x8 (TFLite Micro's int16 BatchMatMul): zero points 0, per output batch index the
 * operands' matching batch (a dimension of 1 repeats), out[m][n] = requantize64(sum over k of
 * L[m][k] * R[k][n]) saturated to int16, the sum in int64 (exact: at most 2^17 products of 2^30),
 * the 64-bit form of TFLite's requantization. L is the left operand read transposed when adj_x, R
 * the right one when adj_y. Whole tensor: the output is kept apart from the operands, written in
 * row-major order; elements go through the views (vmcu_s16.h).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"
#include "vmcu/vmcu_support.h"

#define BMM16_MAX_DEPTH (1 << 17) /* |sum| < 2^47: its product with the Q15 multiplier fits int64 */
#define BMM16_MAX_SHIFT 14        /* the 64-bit form shifts right by 15 - shift */

static int32_t operand16(const int16_t *constant, const vmcu_view *view, uint32_t at)
{
    return constant != 0 ? (int32_t)constant[at] : vmcu_load_signed(view, at, 2u);
}

static uint32_t batch_base16(const int32_t *dims, const int32_t *batch)
{
    uint32_t base = 0u;
    int32_t d;
    for (d = 0; d < 3; ++d) {
        base = base * (uint32_t)dims[d] + (dims[d] == 1 ? 0u : (uint32_t)batch[d]);
    }
    return base * (uint32_t)dims[3] * (uint32_t)dims[4];
}

vmcu_status vmcu_batch_matmul_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output)
{
    const vmcu_batch_matmul_s16_params *p = (const vmcu_batch_matmul_s16_params *)params;
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
                const uint32_t lhs_base = batch_base16(p->lhs_dims, batch);
                const uint32_t rhs_base = batch_base16(p->rhs_dims, batch);
                for (m = 0; m < rows; ++m) {
                    for (n = 0; n < cols; ++n) {
                        int64_t acc = 0;
                        for (k = 0; k < depth; ++k) {
                            const uint32_t l = lhs_base + (uint32_t)(p->adj_x ? k * p->lhs_dims[4] + m
                                                                               : m * p->lhs_dims[4] + k);
                            const uint32_t r = rhs_base + (uint32_t)(p->adj_y ? n * p->rhs_dims[4] + k
                                                                               : k * p->rhs_dims[4] + n);
                            acc += (int64_t)(operand16(p->lhs_constant, lhs, l) * operand16(p->rhs_constant, rhs, r));
                        }
                        vmcu_store_signed(output, out++, 2u,
                                          vmcu_clamp(vmcu_requantize64(acc, p->output_multiplier, p->output_shift),
                                                     -32768, 32767));
                    }
                }
            }
        }
    }
    return VMCU_OK;
}

/* Shapes whose batch dimensions broadcast and whose summed dimensions agree (at most 2^17 long);
 * each operand's bytes its input's (or its constant's), two per element; the output the product's;
 * a shift the 64-bit requantization takes. */
static vmcu_status batch_matmul16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_batch_matmul_s16_params *p = (const vmcu_batch_matmul_s16_params *)step->params;
    const uint32_t lhs_count = vmcu_product(p->lhs_dims, 5), rhs_count = vmcu_product(p->rhs_dims, 5);
    const uint32_t activations = (p->lhs_constant == 0 ? 1u : 0u) + (p->rhs_constant == 0 ? 1u : 0u);
    int32_t dims[6], d, depth;
    if (lhs_count == 0u || rhs_count == 0u || lhs_count > UINT32_MAX / 2u || rhs_count > UINT32_MAX / 2u ||
        step->output == VMCU_NO_OUTPUT || step->num_inputs != activations || activations == 0u ||
        (p->adj_x != 0 && p->adj_x != 1) || (p->adj_y != 0 && p->adj_y != 1)) {
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
    dims[5] = 2;
    depth = p->adj_x ? p->lhs_dims[3] : p->lhs_dims[4];
    if (depth != (p->adj_y ? p->rhs_dims[4] : p->rhs_dims[3]) || depth > BMM16_MAX_DEPTH ||
        vmcu_product(dims, 6) == 0u || vmcu_product(dims, 6) != vmcu_output_bytes(model, step) ||
        (p->lhs_constant == 0 && vmcu_input_bytes(model, step, 0u) != 2u * lhs_count) ||
        (p->rhs_constant == 0 && vmcu_input_bytes(model, step, p->lhs_constant == 0 ? 1u : 0u) != 2u * rhs_count) ||
        p->output_multiplier < 0 || !vmcu_in_range(p->output_shift, -31, BMM16_MAX_SHIFT)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t batch_matmul16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_batch_matmul_s16_params *p = (const vmcu_batch_matmul_s16_params *)step->params;
    const int32_t fields[4] = {p->adj_x, p->adj_y, p->output_multiplier, p->output_shift};
    crc = vmcu_crc32_i32s(crc, p->lhs_dims, 5u);
    crc = vmcu_crc32_i32s(crc, p->rhs_dims, 5u);
    crc = vmcu_crc32_i32s(crc, fields, 4u);
    if (p->lhs_constant != 0) {
        crc = vmcu_crc32(crc, p->lhs_constant, 2u * vmcu_product(p->lhs_dims, 5));
    }
    return p->rhs_constant != 0 ? vmcu_crc32(crc, p->rhs_constant, 2u * vmcu_product(p->rhs_dims, 5)) : crc;
}

const vmcu_kernel vmcu_batch_matmul_s16_kernel = {.run = vmcu_batch_matmul_s16, .check = batch_matmul16_check,
                                                  .digest = batch_matmul16_digest};
