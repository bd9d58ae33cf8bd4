/*
 * REDUCE_MAX, int8 (whole tensor: the output is apart): every output element, in order, is the
 * largest raw input over the reduced dimensions at its kept position.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_reduction.h"

vmcu_status vmcu_reduce_max_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_reduce_params *p = (const vmcu_reduce_params *)params;
    vmcu_reduction r;
    int32_t red_idx[VMCU_MAX_DIMS];
    int32_t o, k;
    (void)ctx;
    if (p->rank < 1 || p->rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    vmcu_reduction_split(&r, p->dims, p->reduce, p->rank, p->rank);
    for (o = 0; o < r.outer; ++o) {
        uint32_t offset = vmcu_reduction_base(&r, o);
        int32_t pos, best = -128;
        for (k = 0; k < r.reduced; ++k) {
            red_idx[k] = 0;
        }
        for (pos = 0; pos < r.positions; ++pos) {
            best = vmcu_max(best, vmcu_get(&inputs[0], offset));
            offset += vmcu_reduction_next(&r, red_idx);
        }
        vmcu_put(output, (uint32_t)o, (int8_t)best);
    }
    return VMCU_OK;
}
