/*
 * Element-wise functions of one int8 input (ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC,
 * TANH): an int8 output depends only on the input byte, so the converter evaluates TFLite's
 * arithmetic for all 256 bytes and the kernel looks each one up. Flat output segments.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#define LOOKUP_TABLE_LENGTH 256u /* one entry per byte value */

vmcu_status vmcu_lookup_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_lookup_params *p = (const vmcu_lookup_params *)params;
    const uint32_t size = (uint32_t)p->size, segment = ctx->step->segment;
    uint32_t first, len;
    for (first = 0; first < size; first += len) {
        int8_t *values = ctx->scratch;
        uint32_t i;
        len = size - first < segment ? size - first : segment;
        vmcu_read(&inputs[0], first, values, len);
        for (i = 0; i < len; ++i) {
            values[i] = p->table[(uint8_t)values[i]];
        }
        vmcu_write(output, first, values, len);
    }
    return VMCU_OK;
}

/* `size` bytes in and out, a segment (at least one byte) at a time through the scratch. */
static vmcu_status lookup_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_lookup_params *p = (const vmcu_lookup_params *)step->params;
    const uint32_t size = (uint32_t)p->size;
    if (p->table == 0 || p->size < 1 || size != vmcu_input_bytes(model, step, 0) ||
        size != vmcu_output_bytes(model, step) || !vmcu_segments_fit(step, size)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t lookup_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_lookup_params *p = (const vmcu_lookup_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->size);
    return vmcu_crc32(crc, p->table, LOOKUP_TABLE_LENGTH);
}

const vmcu_kernel vmcu_lookup_s8_kernel = {.run = vmcu_lookup_s8, .check = lookup_check, .digest = lookup_digest};
