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
    /* the shifts were checked before the run (vmcu_add_sub_check) */
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, add_run);
}

const vmcu_kernel vmcu_add_s8_kernel = {
    .run = vmcu_add_s8, .check = vmcu_add_sub_check, .digest = vmcu_elementwise_digest};
