/*
 * QUANTIZE, int8 -> int8: TFLite's reference Requantize.
 *
 * (x - input zero point) times the Q31 multiplier of input scale / output scale, plus the
 * output zero point, saturated to int8. Flat segments: each is read into ctx->scratch,
 * transformed there and stored.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_quantize_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_quantize_params *p = (const vmcu_quantize_params *)params;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t first;
    if (segment < 1 || p->shift > 23) { /* 255 * 2^23 is the most that fits the left shift */
        return VMCU_ERROR_BAD_MODEL;
    }
    for (first = 0; first < p->size; first += segment) {
        const int32_t len = first + segment < p->size ? segment : p->size - first;
        int32_t i;
        vmcu_read(&inputs[0], (uint32_t)first, ctx->scratch, (uint32_t)len);
        for (i = 0; i < len; ++i) {
            const int32_t v = vmcu_requantize((int32_t)ctx->scratch[i] - p->input_zero_point, p->multiplier, p->shift) +
                              p->output_zero_point;
            ctx->scratch[i] = (int8_t)vmcu_clamp(v, -128, 127);
        }
        vmcu_write(output, (uint32_t)first, ctx->scratch, (uint32_t)len);
    }
    return VMCU_OK;
}
