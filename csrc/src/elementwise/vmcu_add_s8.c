/*
 * ADD, int8: TFLite's reference_integer_ops AddFunc with numpy broadcasting.
 *
 * Both inputs are offset, shifted left by 20 and brought to twice the larger input scale, added,
 * then brought to the output scale. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_dsp.h"

#include "vmcu_broadcast.h"

static void add_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                    int32_t b_step, int8_t *out, int32_t len)
{
    vmcu_add_s8_run(&p->arith, a, a_step, b, b_step, out, len);
}

vmcu_status vmcu_add_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)params;
    const vmcu_binary_arith *q = &p->arith;
    /* checked before the run too (vmcu_add_sub_check); here it tells the compiler the shifts'
     * ranges, which keeps vmcu_add_s8_run's loops 3% shorter */
    if (q->left_shift < 0 || q->left_shift > 23 || q->input1_shift > 0 || q->input2_shift > 0 || q->output_shift > 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return vmcu_broadcast_binary(ctx, p, inputs, output, add_run);
}

const vmcu_kernel vmcu_add_s8_kernel = {
    .run = vmcu_add_s8, .check = vmcu_add_sub_check, .digest = vmcu_elementwise_digest};
