/*
 * MUL, int8: TFLite's reference_integer_ops MulElementwise with numpy broadcasting.
 *
 * (x1 + offset1) * (x2 + offset2) in int32, times one Q31 multiplier, plus the output zero
 * point. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void mul_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                    int32_t b_step, int8_t *out, int32_t len)
{
    const vmcu_binary_arith *q = &p->arith;
    int32_t i;
    for (i = 0; i < len; ++i) {
        const int32_t product = ((int32_t)a[i * a_step] + q->input1_offset) * ((int32_t)b[i * b_step] + q->input2_offset);
        const int32_t v = vmcu_requantize(product, q->output_multiplier, q->output_shift) + q->output_offset;
        out[i] = (int8_t)vmcu_clamp(v, q->act_min, q->act_max);
    }
}

vmcu_status vmcu_mul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, mul_run);
}
