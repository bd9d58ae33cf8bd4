/*
 * GATHER, int8 (whole tensor: the output is apart): the input read as [outer][axis_size][inner];
 * for each outer index, the inner rows of the indices in order (each checked before the run).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_gather_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_gather_params *p = (const vmcu_gather_params *)params;
    uint32_t out_offset = 0;
    int32_t o, i;
    (void)ctx;
    for (o = 0; o < p->outer; ++o) {
        for (i = 0; i < p->count; ++i) {
            const uint32_t row = (uint32_t)(o * p->axis_size + p->indices[i]) * (uint32_t)p->inner;
            vmcu_copy(output, out_offset, &inputs[0], row, (uint32_t)p->inner);
            out_offset += (uint32_t)p->inner;
        }
    }
    return VMCU_OK;
}

/* Input [outer][axis_size][inner] and output [outer][count][inner] to the byte; every index a row
 * of the axis (the table is walked: `count` indices). */
static vmcu_status gather_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_gather_params *p = (const vmcu_gather_params *)step->params;
    const int32_t input[3] = {p->outer, p->axis_size, p->inner}, output[3] = {p->outer, p->count, p->inner};
    int32_t i;
    if (vmcu_product(input, 3) == 0u || vmcu_product(input, 3) != vmcu_input_bytes(model, step, 0) ||
        vmcu_product(output, 3) == 0u || vmcu_product(output, 3) != vmcu_output_bytes(model, step) ||
        p->indices == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->count; ++i) {
        if (!vmcu_in_range(p->indices[i], 0, p->axis_size - 1)) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    return VMCU_OK;
}

static uint32_t gather_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_gather_params *p = (const vmcu_gather_params *)step->params;
    const int32_t fields[4] = {p->outer, p->axis_size, p->inner, p->count};
    crc = vmcu_crc32_i32s(crc, fields, 4u);
    return vmcu_crc32(crc, p->indices, (uint32_t)p->count * 4u);
}

const vmcu_kernel vmcu_gather_s8_kernel = {.run = vmcu_gather_s8, .check = gather_check, .digest = gather_digest};
