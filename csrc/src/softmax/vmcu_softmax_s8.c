/*
 * SOFTMAX, int8 (not implemented yet).
 */
#include "vmcu/vmcu_kernels.h"

vmcu_status vmcu_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs, const vmcu_view *output)
{
    (void)ctx;
    (void)params;
    (void)inputs;
    (void)output;
    return VMCU_ERROR_UNSUPPORTED;
}
