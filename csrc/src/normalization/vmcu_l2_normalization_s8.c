/*
 * L2_NORMALIZATION, int8: TFLite's reference_integer_ops L2Normalization. Per row of the last
 * dimension, the sum of squared offsets gives an inverse-square-root multiplier (TFLite's
 * GetInvSqrtQuantizedMultiplierExp, five Newton-Raphson steps in gemmlowp fixed point); each
 * value is rescaled by it to the 1/128 grid. Rows are whole output segments, as for SOFTMAX.
 */
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
    const int32_t depth = p->depth, segment = (int32_t)ctx->step->segment;
    const int32_t chunk = segment < depth ? segment : depth;
    int32_t r;
    if (segment < 1 || depth < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (r = 0; r < p->rows; ++r) {
        const uint32_t row = (uint32_t)(r * depth);
        int32_t sum = 0, multiplier, shift, i, first;
        for (i = 0; i < depth; ++i) {
            const int32_t v = vmcu_get(in, row + (uint32_t)i) - p->input_zero_point;
            sum += v * v;
        }
        inv_sqrt(sum, &multiplier, &shift);
        for (first = 0; first < depth; first += chunk) {
            const int32_t len = first + chunk < depth ? chunk : depth - first;
            for (i = 0; i < len; ++i) {
                const int32_t v = vmcu_get(in, row + (uint32_t)(first + i)) - p->input_zero_point;
                ctx->scratch[i] = (int8_t)vmcu_sat8(vmcu_requantize(v, multiplier, shift + 7));
            }
            vmcu_write(output, row + (uint32_t)first, ctx->scratch, (uint32_t)len);
        }
    }
    return VMCU_OK;
}
