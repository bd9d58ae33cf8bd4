/*
 * MAXIMUM and MINIMUM, int8: the raw values compared (TFLite's MaximumMinimumBroadcastSlow), with
 * numpy broadcasting. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void maximum_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                        int32_t b_step, int8_t *out, int32_t len)
{
    int32_t i;
    (void)p;
    for (i = 0; i < len; ++i) {
        out[i] = (int8_t)vmcu_max(a[i * a_step], b[i * b_step]);
    }
}

static void minimum_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                        int32_t b_step, int8_t *out, int32_t len)
{
    int32_t i;
    (void)p;
    for (i = 0; i < len; ++i) {
        out[i] = (int8_t)vmcu_min(a[i * a_step], b[i * b_step]);
    }
}

vmcu_status vmcu_maximum_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, maximum_run);
}

vmcu_status vmcu_minimum_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, minimum_run);
}

/* No arithmetic: the walk is all there is to check. */
static vmcu_status maximum_minimum_check(const vmcu_model *model, const vmcu_step *step)
{
    return vmcu_broadcast_walk_ok(model, step) ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

const vmcu_kernel vmcu_maximum_s8_kernel = {
    .run = vmcu_maximum_s8, .check = maximum_minimum_check, .digest = vmcu_elementwise_digest};
const vmcu_kernel vmcu_minimum_s8_kernel = {
    .run = vmcu_minimum_s8, .check = maximum_minimum_check, .digest = vmcu_elementwise_digest};
