/*
 * Element-wise functions of one int8 input (ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC,
 * TANH): an int8 output depends only on the input byte, so the converter evaluates TFLite's
 * arithmetic for all 256 bytes and the kernel looks each one up. Flat output segments.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_lookup_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_lookup_params *p = (const vmcu_lookup_params *)params;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t first;
    if (segment < 1 || p->table == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (first = 0; first < p->size; first += segment) {
        const int32_t len = first + segment < p->size ? segment : p->size - first;
        int8_t *values = ctx->scratch;
        int32_t i;
        vmcu_read(&inputs[0], (uint32_t)first, values, (uint32_t)len);
        for (i = 0; i < len; ++i) {
            values[i] = p->table[(uint8_t)values[i]];
        }
        vmcu_write(output, (uint32_t)first, values, (uint32_t)len);
    }
    return VMCU_OK;
}
