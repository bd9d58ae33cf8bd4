/*
 * QUANTIZE, int8 -> int8: TFLite's reference Requantize.
 *
 * (x - input zero point) times the Q31 multiplier of input scale / output scale, plus the
 * output zero point, saturated to int8. Flat segments: each is read into ctx->scratch,
 * transformed there and stored.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* 255 * 2^23 is the most an offset input shifted left fits in int32 (TFLite shifts it as an int32) */
#define QUANTIZE_MAX_LEFT_SHIFT 23

vmcu_status vmcu_quantize_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_quantize_params *p = (const vmcu_quantize_params *)params;
    const uint32_t size = (uint32_t)p->size, segment = ctx->step->segment;
    uint32_t first, len;
    for (first = 0; first < size; first += len) {
        uint32_t i;
        len = size - first < segment ? size - first : segment;
        vmcu_read(&inputs[0], first, ctx->scratch, len);
        for (i = 0; i < len; ++i) {
            const int32_t v = vmcu_requantize((int32_t)ctx->scratch[i] - p->input_zero_point, p->multiplier, p->shift) +
                              p->output_zero_point;
            ctx->scratch[i] = (int8_t)vmcu_clamp(v, -128, 127);
        }
        vmcu_write(output, first, ctx->scratch, len);
    }
    return VMCU_OK;
}

/*
 * `size` bytes in and out, a segment (at least one byte) at a time through the scratch. With int8
 * zero points and a left shift of at most 23, the requantized value is below 255 * 2^23 in
 * magnitude whatever the multiplier, so adding the output zero point cannot overflow.
 */
static vmcu_status quantize_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_quantize_params *p = (const vmcu_quantize_params *)step->params;
    const uint32_t size = (uint32_t)p->size;
    if (p->size < 1 || size != vmcu_input_bytes(model, step, 0) || size != vmcu_output_bytes(model, step) ||
        !vmcu_segments_fit(step, size) ||
        !vmcu_in_range(p->input_zero_point, -128, 127) || !vmcu_in_range(p->output_zero_point, -128, 127) ||
        !vmcu_in_range(p->shift, -31, QUANTIZE_MAX_LEFT_SHIFT)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t quantize_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_quantize_params *p = (const vmcu_quantize_params *)step->params;
    const int32_t fields[5] = {p->size, p->input_zero_point, p->output_zero_point, p->multiplier, p->shift};
    return vmcu_crc32_i32s(crc, fields, 5u);
}

const vmcu_kernel vmcu_quantize_s8_kernel = {
    .run = vmcu_quantize_s8, .check = quantize_check, .digest = quantize_digest};
