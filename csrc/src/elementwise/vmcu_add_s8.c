/*
 * ADD, int8: TFLite's reference_integer_ops AddFunc with numpy broadcasting.
 *
 * Both inputs are offset, shifted left by 20 and brought to twice the larger input scale, added,
 * then brought to the output scale. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void add_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                    int32_t b_step, int8_t *out, int32_t len)
{
    const int32_t scale = (int32_t)1 << p->left_shift;
    int32_t i;
    for (i = 0; i < len; ++i) {
        const int32_t x1 = ((int32_t)a[i * a_step] + p->input1_offset) * scale;
        const int32_t x2 = ((int32_t)b[i * b_step] + p->input2_offset) * scale;
        const int32_t s1 = vmcu_rdbpot(vmcu_srdhm(x1, p->input1_multiplier), -p->input1_shift);
        const int32_t s2 = vmcu_rdbpot(vmcu_srdhm(x2, p->input2_multiplier), -p->input2_shift);
        const int32_t sum = vmcu_add_wrap(s1, s2);
        const int32_t v = vmcu_rdbpot(vmcu_srdhm(sum, p->output_multiplier), -p->output_shift) + p->output_offset;
        out[i] = (int8_t)vmcu_clamp(v, p->act_min, p->act_max);
    }
}

vmcu_status vmcu_add_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)params;
    if (p->left_shift < 0 || p->left_shift > 23 || p->input1_shift > 0 || p->input2_shift > 0 || p->output_shift > 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return vmcu_broadcast_binary(ctx, p, inputs, output, add_run);
}
