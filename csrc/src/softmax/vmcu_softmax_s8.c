/*
 * SOFTMAX, int8 -> int8 over the last dimension: TFLite's quantized reference Softmax
 * (gemmlowp fixed-point exp and reciprocal; output scale 1/256, zero point -128).
 *
 * One row at a time (the segment is the row): its maximum, then the sum of exps of the
 * differences to it, then every output of the row into ctx->scratch before the row is stored.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#define SCALED_DIFF_INTEGER_BITS 5
#define ACCUMULATION_INTEGER_BITS 12

/* exp(beta * scale * diff) in Q0.31 for a diff (<= 0) at or above diff_min. */
static int32_t exp_of_diff(const vmcu_softmax_params *p, int32_t diff)
{
    const int32_t scaled = (int32_t)((uint32_t)diff << p->input_left_shift);
    return vmcu_exp_on_negative_values(vmcu_srdhm(scaled, p->input_multiplier), SCALED_DIFF_INTEGER_BITS);
}

static int8_t byte_at(const vmcu_view *in, const int8_t *run, uint32_t row, int32_t i)
{
    return run != 0 ? run[i] : vmcu_get(in, row + (uint32_t)i);
}

vmcu_status vmcu_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    const vmcu_softmax_params *p = (const vmcu_softmax_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t depth = p->depth;
    const int32_t segment = (int32_t)ctx->step->segment;
    /* the planner streams softmax only with segment = row; otherwise the output is apart */
    const int32_t chunk = segment < depth ? segment : depth;
    int32_t r;
    if (segment < 1 || depth < 1 || p->input_left_shift < 0 || p->input_left_shift > 31) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (r = 0; r < p->rows; ++r) {
        const uint32_t row = (uint32_t)(r * depth);
        const int8_t *run = vmcu_span(in, row, (uint32_t)depth);
        int32_t max = -128, sum_of_exps = 0, num_bits_over_unit, shifted_scale, exponent, i, first, len;
        for (i = 0; i < depth; ++i) {
            const int32_t v = byte_at(in, run, row, i);
            max = v > max ? v : max;
        }
        for (i = 0; i < depth; ++i) {
            const int32_t diff = (int32_t)byte_at(in, run, row, i) - max;
            if (diff >= p->diff_min) {
                /* Q0.31 -> Q12.19 (gemmlowp Rescale) */
                sum_of_exps = vmcu_add_wrap(sum_of_exps, vmcu_rdbpot(exp_of_diff(p, diff), ACCUMULATION_INTEGER_BITS));
            }
        }
        shifted_scale = vmcu_get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS, &num_bits_over_unit);
        exponent = num_bits_over_unit + 31 - 8;
        if (exponent < 0 || exponent > 31) { /* TFLite Micro aborts on such a row */
            return VMCU_ERROR_UNSUPPORTED;
        }
        for (first = 0; first < depth; first += len) {
            len = depth - first < chunk ? depth - first : chunk;
            for (i = 0; i < len; ++i) {
                const int32_t diff = (int32_t)byte_at(in, run, row, first + i) - max;
                int32_t v = -128;
                if (diff >= p->diff_min) {
                    v = vmcu_rdbpot(vmcu_srdhm(shifted_scale, exp_of_diff(p, diff)), exponent) - 128;
                    v = vmcu_clamp(v, -128, 127);
                }
                ctx->scratch[i] = (int8_t)v;
            }
            vmcu_write(output, row + (uint32_t)first, ctx->scratch, (uint32_t)len);
        }
    }
    return VMCU_OK;
}

/* rows x depth bytes in and out; a row (or a segment of it) at a time in the scratch. */
static vmcu_status softmax_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_softmax_params *p = (const vmcu_softmax_params *)step->params;
    const uint32_t bytes = vmcu_times(p->rows, p->depth);
    if (bytes == 0u || step->num_inputs < 1u || bytes > vmcu_input_bytes(model, step, 0) ||
        bytes > vmcu_output_bytes(model, step) || !vmcu_segments_fit(step, (uint32_t)p->depth) ||
        !vmcu_in_range(p->input_left_shift, 0, 31) || p->input_multiplier < 0 || p->diff_min > 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t softmax_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_softmax_params *p = (const vmcu_softmax_params *)step->params;
    const int32_t fields[5] = {p->rows, p->depth, p->input_multiplier, p->input_left_shift, p->diff_min};
    return vmcu_crc32_i32s(crc, fields, 5u);
}

const vmcu_kernel vmcu_softmax_s8_kernel = {.run = vmcu_softmax_s8, .check = softmax_check, .digest = softmax_digest};
