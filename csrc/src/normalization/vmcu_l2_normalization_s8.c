/*
 * L2_NORMALIZATION, int8: TFLite's reference_integer_ops L2Normalization. Per row of the last
 * dimension, the sum of squared offsets gives an inverse-square-root multiplier (TFLite's
 * GetInvSqrtQuantizedMultiplierExp, five Newton-Raphson steps in gemmlowp fixed point); each
 * value is rescaled by it to the 1/128 grid. Rows are whole output segments, as for SOFTMAX.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* multiplier * 2^(shift - 31) ~ 1 / sqrt(x), x >= 0 */
static void inv_sqrt(int32_t x, int32_t *multiplier, int32_t *shift)
{
    const int32_t half_three = (1 << 28) + (1 << 27); /* 1.5 in Q3.28 */
    int32_t s = 11, pairs, half_input, guess = 1 << 28, i;
    if (x <= 1) {
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    while (x >= (1 << 29)) {
        x /= 4;
        ++s;
    }
    pairs = (vmcu_clz32((uint32_t)x) - 1) / 2 - 1;
    s -= pairs;
    x <<= 2 * pairs;
    half_input = vmcu_srmbpot(x >> 1, -1);
    for (i = 0; i < 5; ++i) {
        const int32_t cubed = vmcu_srmbpot(vmcu_srdhm(vmcu_srdhm(guess, guess), guess), 6); /* Q9 -> Q3 */
        guess = vmcu_srmbpot(vmcu_sub_wrap(vmcu_srdhm(half_three, guess), vmcu_srdhm(half_input, cubed)), 3);
    }
    guess = vmcu_srdhm(guess, 1518500250); /* times sqrt(2) / 2 */
    if (s < 0) {
        guess = (int32_t)((uint32_t)guess << -s);
        s = 0;
    }
    *multiplier = guess;
    *shift = -s;
}

vmcu_status vmcu_l2_normalization_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                     const vmcu_view *output)
{
    const vmcu_l2_normalization_params *p = (const vmcu_l2_normalization_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t depth = p->depth;
    /* a row at a time, or segments of it when they are shorter (the check: segment >= 1) */
    const int32_t chunk = ctx->step->segment < (uint32_t)depth ? (int32_t)ctx->step->segment : depth;
    int32_t r;
    for (r = 0; r < p->rows; ++r) {
        const uint32_t row = (uint32_t)(r * depth);
        int32_t sum = 0, multiplier, shift, i, first, len;
        for (i = 0; i < depth; ++i) {
            const int32_t v = vmcu_get(in, row + (uint32_t)i) - p->input_zero_point;
            sum += v * v;
        }
        inv_sqrt(sum, &multiplier, &shift);
        for (first = 0; first < depth; first += len) {
            len = depth - first < chunk ? depth - first : chunk;
            for (i = 0; i < len; ++i) {
                const int32_t v = vmcu_get(in, row + (uint32_t)(first + i)) - p->input_zero_point;
                ctx->scratch[i] = (int8_t)vmcu_sat8(vmcu_requantize(v, multiplier, shift + 7));
            }
            vmcu_write(output, row + (uint32_t)first, ctx->scratch, (uint32_t)len);
        }
    }
    return VMCU_OK;
}

/*
 * rows x depth bytes in and out, a row (or a segment of it) at a time through the scratch. A row's
 * sum of squares is an int32 (as TFLite's): depth times the largest square of an int8 value less
 * the zero point must fit.
 */
static vmcu_status l2_normalization_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_l2_normalization_params *p = (const vmcu_l2_normalization_params *)step->params;
    const uint32_t bytes = vmcu_times(p->rows, p->depth);
    int32_t largest;
    if (bytes == 0u || bytes != vmcu_input_bytes(model, step, 0) || bytes != vmcu_output_bytes(model, step) ||
        !vmcu_segments_fit(step, (uint32_t)p->depth) || !vmcu_in_range(p->input_zero_point, -128, 127)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    largest = vmcu_max(127 - p->input_zero_point, p->input_zero_point + 128);
    return vmcu_times(p->depth, largest * largest) != 0u ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static uint32_t l2_normalization_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_l2_normalization_params *p = (const vmcu_l2_normalization_params *)step->params;
    const int32_t fields[3] = {p->rows, p->depth, p->input_zero_point};
    return vmcu_crc32_i32s(crc, fields, 3u);
}

const vmcu_kernel vmcu_l2_normalization_s8_kernel = {
    .run = vmcu_l2_normalization_s8, .check = l2_normalization_check, .digest = l2_normalization_digest};
