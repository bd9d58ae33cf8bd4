/*
 * MEAN, int8: TFLite's QuantizedMeanOrSum (an int32 sum per output, minus input zero point x
 * count, one requantization whose multiplier includes 1 / count).
 *
 * Output elements are produced in order, in blocks of up to 16 consecutive ones whose sums stay
 * on the stack; ctx->scratch collects `segment` outputs before they are stored. For the global
 * average pool the planner streams ({H*W reduced, C kept}: its `channel_reduction` pattern),
 * output segment q is thus computed from channel segment q of every pixel, then stored.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#define BLOCK 16

/* One output: TFLite's requantization of the sum less the zero point's share, clamped to int8. */
static int8_t mean_value(const vmcu_mean_params *p, int32_t sum)
{
    const int32_t shifted = (int32_t)((uint32_t)sum - (uint32_t)p->input_zero_point * (uint32_t)p->count);
    return (int8_t)vmcu_clamp(vmcu_requantize(shifted, p->multiplier, p->shift) + p->output_zero_point, -128, 127);
}

/*
 * Only the innermost dimension reduced: output o sums the run_length bytes from o * run_length, so
 * a segment's outputs sum one span of the input, read in the same order as the general walk below
 * (which would take a span, a block and a pass of its index arithmetic per output).
 */
static void mean_runs(const vmcu_context *ctx, const vmcu_mean_params *p, const vmcu_view *in,
                      const vmcu_view *output, int32_t outputs, int32_t run_length, int32_t segment)
{
    int32_t o0;
    for (o0 = 0; o0 < outputs; o0 += segment) {
        const int32_t n = outputs - o0 < segment ? outputs - o0 : segment;
        const uint32_t offset = (uint32_t)o0 * (uint32_t)run_length;
        const int8_t *runs = vmcu_span(in, offset, (uint32_t)n * (uint32_t)run_length);
        int32_t j, i;
        for (j = 0; j < n; ++j) {
            const uint32_t first = (uint32_t)j * (uint32_t)run_length;
            int32_t sum = 0;
            for (i = 0; i < run_length; ++i) {
                sum += runs != 0 ? runs[first + (uint32_t)i] : vmcu_get(in, offset + first + (uint32_t)i);
            }
            ctx->scratch[j] = mean_value(p, sum);
        }
        vmcu_write(output, (uint32_t)o0, ctx->scratch, (uint32_t)n);
    }
}

vmcu_status vmcu_mean_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t segment = (int32_t)ctx->step->segment;
    const int32_t rank = p->rank, last = p->rank - 1;
    int32_t stride[VMCU_MAX_DIMS];
    int32_t kept_dims[VMCU_MAX_DIMS], kept_strides[VMCU_MAX_DIMS], red_dims[VMCU_MAX_DIMS], red_strides[VMCU_MAX_DIMS];
    int32_t red_idx[VMCU_MAX_DIMS];
    int32_t kept = 0, reduced = 0, inner, run_length, outer = 1, positions = 1;
    int32_t d, o, filled = 0;
    uint32_t written = 0;
    if (segment < 1 || rank < 1 || rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    stride[last] = 1;
    for (d = last; d > 0; --d) {
        stride[d - 1] = stride[d] * p->dims[d];
    }
    /* The innermost dimension is either a block of consecutive outputs (kept) or a contiguous
     * run summed into one output (reduced); the other dimensions are walked by index. */
    inner = p->reduce[last] ? 1 : p->dims[last];
    run_length = p->reduce[last] ? p->dims[last] : 1;
    for (d = 0; d < last; ++d) {
        if (p->reduce[d]) {
            red_dims[reduced] = p->dims[d];
            red_strides[reduced++] = stride[d];
            positions *= p->dims[d];
        } else {
            kept_dims[kept] = p->dims[d];
            kept_strides[kept++] = stride[d];
            outer *= p->dims[d];
        }
    }
    if (run_length > 1 && reduced == 0) {
        mean_runs(ctx, p, in, output, outer, run_length, segment);
        return VMCU_OK;
    }
    for (o = 0; o < outer; ++o) {
        uint32_t base = 0;
        int32_t rest = o, j0, k;
        for (k = kept - 1; k >= 0; --k) {
            base += (uint32_t)((rest % kept_dims[k]) * kept_strides[k]);
            rest /= kept_dims[k];
        }
        for (j0 = 0; j0 < inner;) {
            int32_t len = inner - j0 < BLOCK ? inner - j0 : BLOCK;
            int32_t sum[BLOCK];
            uint32_t roff = 0;
            int32_t pos, j;
            if (len > segment - filled) {
                len = segment - filled;
            }
            for (j = 0; j < len; ++j) {
                sum[j] = 0;
            }
            for (k = 0; k < reduced; ++k) {
                red_idx[k] = 0;
            }
            for (pos = 0; pos < positions; ++pos) {
                const uint32_t offset = base + roff + (uint32_t)j0;
                const uint32_t bytes = (uint32_t)(run_length > 1 ? run_length : len);
                const int8_t *run = vmcu_span(in, offset, bytes);
                if (run_length > 1) { /* one output: a contiguous run of reduced values */
                    int32_t i;
                    for (i = 0; i < run_length; ++i) {
                        sum[0] += run != 0 ? run[i] : vmcu_get(in, offset + (uint32_t)i);
                    }
                } else {
                    for (j = 0; j < len; ++j) {
                        sum[j] += run != 0 ? run[j] : vmcu_get(in, offset + (uint32_t)j);
                    }
                }
                /* next reduced position */
                for (k = reduced - 1; k >= 0; --k) {
                    roff += (uint32_t)red_strides[k];
                    if (++red_idx[k] < red_dims[k]) {
                        break;
                    }
                    roff -= (uint32_t)(red_dims[k] * red_strides[k]);
                    red_idx[k] = 0;
                }
            }
            for (j = 0; j < len; ++j) {
                ctx->scratch[filled + j] = mean_value(p, sum[j]);
            }
            filled += len;
            j0 += len;
            if (filled == segment || (o == outer - 1 && j0 == inner)) {
                vmcu_write(output, written, ctx->scratch, (uint32_t)filled);
                written += (uint32_t)filled;
                filled = 0;
            }
        }
    }
    return VMCU_OK;
}

/* Most input values one output sums: |sum| <= 128 x this and, with the zero point's count taken
 * off, 255 x this shifted left by the output shift stays below 2^31 minus the output zero point. */
#define MAX_REDUCED (INT32_C(1) << 23)

/*
 * The input's dimensions to the byte; the kept ones to the output's bytes, of which a segment (at
 * most the whole output) goes through the scratch; `count` the number of values each output sums
 * (TFLite's), few enough for the int32 sum and the requantization (MAX_REDUCED); zero points
 * within int8; the right shift at most 31.
 */
static vmcu_status mean_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)step->params;
    int32_t kept[VMCU_MAX_DIMS], reduced[VMCU_MAX_DIMS];
    int32_t d, num_kept = 0, num_reduced = 0;
    uint32_t outputs, count;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || vmcu_product(p->dims, p->rank) == 0u ||
        vmcu_product(p->dims, p->rank) != vmcu_input_bytes(model, step, 0)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->reduce[d]) {
            reduced[num_reduced++] = p->dims[d];
        } else {
            kept[num_kept++] = p->dims[d];
        }
    }
    outputs = vmcu_product(kept, num_kept);   /* 1 when every dimension is reduced */
    count = vmcu_product(reduced, num_reduced); /* 1 when none is */
    if (outputs != vmcu_output_bytes(model, step) || count != (uint32_t)p->count || !vmcu_segments_fit(step, outputs) ||
        step->segment > UINT32_C(0x7FFFFFFF) ||
        !vmcu_in_range(p->input_zero_point, -128, 127) || !vmcu_in_range(p->output_zero_point, -128, 127) ||
        !vmcu_in_range(p->shift, -31, 23) || count > ((uint32_t)MAX_REDUCED >> (p->shift > 0 ? p->shift : 0))) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t mean_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)step->params;
    const int32_t fields[5] = {p->count, p->input_zero_point, p->output_zero_point, p->multiplier, p->shift};
    int32_t d;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    for (d = 0; d < VMCU_MAX_DIMS; ++d) {
        crc = vmcu_crc32_u32(crc, p->reduce[d]);
    }
    return vmcu_crc32_i32s(crc, fields, 5u);
}

const vmcu_kernel vmcu_mean_s8_kernel = {.run = vmcu_mean_s8, .check = mean_check, .digest = mean_digest};
