/*
 * LOG_SOFTMAX, int8: TFLite's reference_ops LogSoftmaxQuantized (gemmlowp fixed point).
 *
 * Per row: the sum of exps of the differences to the row maximum (Q12.19), its natural log
 * (TFLite's log_x_for_x_greater_than_or_equal_to_1, Q5.26), then each difference minus that log
 * on the 16/256 output grid around 127. Rows are whole output segments, as for SOFTMAX.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#define INPUT_BITS 5
#define ACCUMULATION_BITS 12
#define OUTPUT_BITS 4
#define ACCUM_BITS (INPUT_BITS + 1) /* the log's headroom: one bit above its result */

static int32_t saturate32(int64_t x)
{
    return x > INT32_MAX ? INT32_MAX : (x < INT32_MIN ? INT32_MIN : (int32_t)x);
}

static int32_t rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + (int64_t)b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* ln(x) in Q5.26 for x >= 1 in Q12.19: the binary exponent (from x and from x / sqrt(2), to keep
 * the mantissa near one) plus a rational approximation of the mantissa's log. */
static int32_t log_q5(int32_t x)
{
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int32_t shifted_quarter = vmcu_srmbpot(536870912, -ACCUM_BITS);
    const int32_t z_a_headroom_plus_1 = vmcu_clz32((uint32_t)x);
    const int32_t r_a = vmcu_srmbpot(vmcu_srdhm(vmcu_srmbpot(x, z_a_headroom_plus_1 - 1), sqrt_half), 1);
    const int32_t z_a_pow_2_adj = saturate32(
        (int64_t)vmcu_srmbpot(ACCUMULATION_BITS - z_a_headroom_plus_1, 31 - ACCUM_BITS) + shifted_quarter);
    const int32_t z_b_headroom = vmcu_clz32((uint32_t)vmcu_srdhm(x, sqrt_half)) - 1;
    const int32_t r_b = vmcu_srmbpot(x, z_b_headroom);
    const int32_t z_b_pow_2_adj = saturate32(
        (int64_t)vmcu_srmbpot(ACCUMULATION_BITS - z_b_headroom, 31 - ACCUM_BITS) - shifted_quarter);
    const int32_t r = r_a < r_b ? r_a : r_b;
    const int32_t z_pow_2_adj = z_a_pow_2_adj > z_b_pow_2_adj ? z_a_pow_2_adj : z_b_pow_2_adj;
    const int32_t p = rounding_half_sum(r, sqrt_sqrt_half);
    const int32_t q = vmcu_add_wrap(vmcu_sub_wrap(r, sqrt_sqrt_half), vmcu_sub_wrap(r, sqrt_sqrt_half));
    const int32_t common_sq = vmcu_srdhm(q, q);
    const int32_t num = vmcu_add_wrap(vmcu_srdhm(q, r), vmcu_srdhm(vmcu_srdhm(q, common_sq), alpha_n));
    const int32_t denom_minus_one = vmcu_add_wrap(
        vmcu_srdhm(p, vmcu_add_wrap(vmcu_add_wrap(alpha_i, q), vmcu_srdhm(alpha_d, common_sq))), vmcu_srdhm(alpha_f, q));
    const int32_t recip_denom = vmcu_one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    const int32_t num_scaled = vmcu_srmbpot(num, -ACCUM_BITS);
    const int32_t total = vmcu_add_wrap(vmcu_srdhm(z_pow_2_adj, log_2), vmcu_srdhm(num_scaled, recip_denom));
    return vmcu_srmbpot(total, ACCUM_BITS - INPUT_BITS);
}

vmcu_status vmcu_log_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output)
{
    const vmcu_log_softmax_params *p = (const vmcu_log_softmax_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t depth = p->depth;
    /* a row at a time, or segments of it when they are shorter (the check: segment >= 1) */
    const int32_t chunk = ctx->step->segment < (uint32_t)depth ? (int32_t)ctx->step->segment : depth;
    int32_t r;
    for (r = 0; r < p->rows; ++r) {
        const uint32_t row = (uint32_t)(r * depth);
        int32_t max = -128, sum = 0, log_sum, adjusted_diff_min, reverse, i, first, len;
        for (i = 0; i < depth; ++i) {
            max = vmcu_max(max, vmcu_get(in, row + (uint32_t)i));
        }
        for (i = 0; i < depth; ++i) {
            const int32_t diff = vmcu_get(in, row + (uint32_t)i) - max;
            if (diff >= p->diff_min) {
                const int32_t in_q5 = vmcu_requantize(diff, p->input_multiplier, p->input_left_shift);
                sum = vmcu_add_wrap(sum, vmcu_srmbpot(vmcu_exp_on_negative_values(in_q5, INPUT_BITS), -ACCUMULATION_BITS));
            }
        }
        log_sum = log_q5(sum);
        reverse = vmcu_requantize(vmcu_add_wrap(log_sum, INT32_MIN), p->reverse_scaling_divisor, p->reverse_scaling_shift);
        adjusted_diff_min = vmcu_max(p->diff_min - 1, reverse);
        for (first = 0; first < depth; first += len) {
            len = depth - first < chunk ? depth - first : chunk;
            for (i = 0; i < len; ++i) {
                const int32_t diff = vmcu_get(in, row + (uint32_t)(first + i)) - max;
                int32_t v = -128;
                if (diff > adjusted_diff_min) {
                    const int32_t in_q5 = vmcu_requantize(diff, p->input_multiplier, p->input_left_shift);
                    v = vmcu_sat8(vmcu_rdbpot(vmcu_sub_wrap(in_q5, log_sum), 31 - INPUT_BITS - OUTPUT_BITS) + 127);
                }
                ctx->scratch[i] = (int8_t)v;
            }
            vmcu_write(output, row + (uint32_t)first, ctx->scratch, (uint32_t)len);
        }
    }
    return VMCU_OK;
}

/*
 * rows x depth bytes in and out, a row (or a segment of it) at a time through the scratch. The
 * arithmetic takes any multipliers; the shifts are those vmcu_requantize takes (the input's a left
 * one), and diff_min - 1 must not overflow.
 */
static vmcu_status log_softmax_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_log_softmax_params *p = (const vmcu_log_softmax_params *)step->params;
    const uint32_t bytes = vmcu_times(p->rows, p->depth);
    if (bytes == 0u || bytes != vmcu_input_bytes(model, step, 0) || bytes != vmcu_output_bytes(model, step) ||
        !vmcu_segments_fit(step, (uint32_t)p->depth) || !vmcu_in_range(p->input_left_shift, 1, 31) ||
        p->input_multiplier < 0 || !vmcu_in_range(p->reverse_scaling_shift, -31, 0) ||
        !vmcu_in_range(p->diff_min, INT32_MIN + 1, 0)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t log_softmax_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_log_softmax_params *p = (const vmcu_log_softmax_params *)step->params;
    const int32_t fields[7] = {p->rows, p->depth, p->input_multiplier, p->input_left_shift,
                               p->reverse_scaling_divisor, p->reverse_scaling_shift, p->diff_min};
    return vmcu_crc32_i32s(crc, fields, 7u);
}

const vmcu_kernel vmcu_log_softmax_s8_kernel = {
    .run = vmcu_log_softmax_s8, .check = log_softmax_check, .digest = log_softmax_digest};
