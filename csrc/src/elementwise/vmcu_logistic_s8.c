/*
 * LOGISTIC, int8: TFLite's reference_integer_ops Logistic (gemmlowp fixed point).
 *
 * Inputs within the radius are rescaled to Q4.27, go through gemmlowp's logistic and come back
 * on the 1/256 grid with zero point -128; inputs beyond it saturate. Flat segments: each is read
 * into ctx->scratch, transformed there and stored.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static int8_t logistic(const vmcu_logistic_params *p, int8_t x)
{
    const int32_t centered = (int32_t)x - p->input_zero_point;
    int32_t in_q4, in_q0, v;
    if (centered <= -p->input_range_radius) {
        return -128;
    }
    if (centered >= p->input_range_radius) {
        return 127;
    }
    /* |centered| < radius keeps centered * 2^left_shift below 15 * 2^27: no overflow */
    in_q4 = vmcu_srdhm((int32_t)((uint32_t)centered << p->input_left_shift), p->input_multiplier);
    in_q0 = vmcu_logistic_fixed(in_q4, 4);
    v = vmcu_rdbpot(in_q0, 31 - 8) - 128;
    return (int8_t)vmcu_clamp(v, -128, 127);
}

vmcu_status vmcu_logistic_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_logistic_params *p = (const vmcu_logistic_params *)params;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t first;
    if (segment < 1 || p->input_left_shift < 0 || (p->input_left_shift > 30 && p->input_range_radius > 0)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (first = 0; first < p->size; first += segment) {
        const int32_t len = first + segment < p->size ? segment : p->size - first;
        int32_t i;
        vmcu_read(&inputs[0], (uint32_t)first, ctx->scratch, (uint32_t)len);
        for (i = 0; i < len; ++i) {
            ctx->scratch[i] = logistic(p, ctx->scratch[i]);
        }
        vmcu_write(output, (uint32_t)first, ctx->scratch, (uint32_t)len);
    }
    return VMCU_OK;
}
