/*
 * SUB, int8: TFLite's reference_ops SubElementwise with numpy broadcasting: ADD's scaling, the
 * second scaled input subtracted. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void sub_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                    int32_t b_step, int8_t *out, int32_t len)
{
    const vmcu_binary_arith *q = &p->arith;
    const int32_t scale = (int32_t)1 << q->left_shift;
    int32_t i;
    for (i = 0; i < len; ++i) {
        const int32_t s1 = vmcu_requantize((a[i * a_step] + q->input1_offset) * scale, q->input1_multiplier,
                                           q->input1_shift);
        const int32_t s2 = vmcu_requantize((b[i * b_step] + q->input2_offset) * scale, q->input2_multiplier,
                                           q->input2_shift);
        const int32_t v = vmcu_requantize(vmcu_sub_wrap(s1, s2), q->output_multiplier, q->output_shift) +
                          q->output_offset;
        out[i] = (int8_t)vmcu_clamp(v, q->act_min, q->act_max);
    }
}

vmcu_status vmcu_sub_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)params;
    const vmcu_binary_arith *q = &p->arith;
    /* checked before the run too (vmcu_add_sub_check); here it tells the compiler the shifts' ranges */
    if (q->left_shift < 0 || q->left_shift > 23 || q->input1_shift > 0 || q->input2_shift > 0 || q->output_shift > 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return vmcu_broadcast_binary(ctx, p, inputs, output, sub_run);
}

const vmcu_kernel vmcu_sub_s8_kernel = {
    .run = vmcu_sub_s8, .check = vmcu_add_sub_check, .digest = vmcu_elementwise_digest};
