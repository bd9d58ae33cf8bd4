/*
 * SignalWindow, int16 (TFLite Micro's signal library): each sample times its weight (the converter
 * writes a window that repeats over the input out for every sample), shifted right arithmetically in
 * int32 and saturated to int16.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_signal_window(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_signal_window_params *p = (const vmcu_signal_window_params *)params;
    int32_t i;
    (void)ctx;
    if (p->count < 1 || p->shift < 0 || p->shift > 31 || p->weights == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->count; ++i) {
        const int32_t x = (int16_t)(uint16_t)vmcu_load_le(&inputs[0], (uint32_t)i, 2u);
        const int32_t raw = (x * (int32_t)p->weights[i]) >> p->shift; /* |x * w| <= 2^30 */
        vmcu_store_le(output, (uint32_t)i, 2u, (uint64_t)(int64_t)vmcu_clamp(raw, -32768, 32767));
    }
    return VMCU_OK;
}

/* One input and an output of count int16 samples each (the weights' length), a shift an int32 takes. */
static vmcu_status window_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_window_params *p = (const vmcu_signal_window_params *)step->params;
    return step->num_inputs == 1u && p->weights != 0 && p->count >= 1 && p->count <= INT32_MAX / 2 &&
                   vmcu_in_range(p->shift, 0, 31) &&
                   vmcu_input_bytes(model, step, 0u) == 2u * (uint32_t)p->count &&
                   vmcu_output_bytes(model, step) == 2u * (uint32_t)p->count
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t window_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_window_params *p = (const vmcu_signal_window_params *)step->params;
    const int32_t fields[2] = {p->count, p->shift};
    crc = vmcu_crc32_i32s(crc, fields, 2u);
    return p->weights != 0 && p->count > 0 ? vmcu_crc32(crc, p->weights, 2u * (uint32_t)p->count) : crc;
}

const vmcu_kernel vmcu_signal_window_kernel = {
    .run = vmcu_signal_window, .check = window_check, .digest = window_digest};
