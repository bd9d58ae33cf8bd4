/*
 * GATHER, int8 (whole tensor: the output is apart): the input read as [outer][axis_size][inner];
 * for each outer index, the inner rows of the indices in order.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_gather_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_gather_params *p = (const vmcu_gather_params *)params;
    uint32_t out_offset = 0;
    int32_t o, i;
    (void)ctx;
    for (i = 0; i < p->count; ++i) {
        if (p->indices[i] < 0 || p->indices[i] >= p->axis_size) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->count; ++i) {
            const uint32_t row = (uint32_t)(o * p->axis_size + p->indices[i]) * (uint32_t)p->inner;
            vmcu_copy(output, out_offset, &inputs[0], row, (uint32_t)p->inner);
            out_offset += (uint32_t)p->inner;
        }
    }
    return VMCU_OK;
}
