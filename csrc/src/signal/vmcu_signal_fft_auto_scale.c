/*
 * SignalFftAutoScale, int16 (TFLite Micro's signal library), one output per step: the samples
 * shifted left by the bits their largest magnitude leaves free (part 0), or that shift (part 1).
 *
 * The largest magnitude is TFLite Micro's MaxAbs16: an int16 running maximum of v and -v, so a
 * -32768 stores -32768 (and the next larger sample replaces it); the bits are 16 - msb(max) - 1, at
 * least 0, with msb(0) = 32 and a negative max read as uint32 (msb 32), as a GCC build has it.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static int32_t most_significant_bit(uint32_t x)
{
    int32_t bits = 0;
    if (x == 0u) {
        return 32;
    }
    while (x != 0u) {
        x >>= 1;
        ++bits;
    }
    return bits;
}

vmcu_status vmcu_signal_fft_auto_scale(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output)
{
    const vmcu_signal_fft_auto_scale_params *p = (const vmcu_signal_fft_auto_scale_params *)params;
    int16_t max = 0;
    int32_t i, bits;
    (void)ctx;
    if (p->size < 1 || (p->part != 0 && p->part != 1)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->size; ++i) {
        const int32_t v = (int16_t)(uint16_t)vmcu_load_le(&inputs[0], (uint32_t)i, 2u);
        if (v > max) {
            max = (int16_t)v;
        } else if (-v > max) {
            max = (int16_t)(uint16_t)(uint32_t)(-v); /* 32768 wraps to -32768, as in TFLite Micro */
        }
    }
    bits = 16 - most_significant_bit((uint32_t)(int32_t)max) - 1;
    if (bits < 0) {
        bits = 0;
    }
    if (p->part == 1) {
        vmcu_store_le(output, 0u, 4u, (uint64_t)(uint32_t)bits);
        return VMCU_OK;
    }
    for (i = 0; i < p->size; ++i) {
        const int32_t v = (int16_t)(uint16_t)vmcu_load_le(&inputs[0], (uint32_t)i, 2u);
        vmcu_store_le(output, (uint32_t)i, 2u, (uint64_t)(int64_t)(v * ((int32_t)1 << bits))); /* low 16 bits */
    }
    return VMCU_OK;
}

/* One input of at least size samples; the output: size int16 samples (part 0) or one int32 (part 1). */
static vmcu_status fft_auto_scale_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_fft_auto_scale_params *p = (const vmcu_signal_fft_auto_scale_params *)step->params;
    return step->num_inputs == 1u && p->size >= 1 && p->size <= INT32_MAX / 2 && (p->part == 0 || p->part == 1) &&
                   vmcu_input_bytes(model, step, 0u) >= 2u * (uint32_t)p->size &&
                   vmcu_output_bytes(model, step) == (p->part == 0 ? 2u * (uint32_t)p->size : 4u)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t fft_auto_scale_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_fft_auto_scale_params *p = (const vmcu_signal_fft_auto_scale_params *)step->params;
    const int32_t fields[2] = {p->size, p->part};
    return vmcu_crc32_i32s(crc, fields, 2u);
}

const vmcu_kernel vmcu_signal_fft_auto_scale_kernel = {
    .run = vmcu_signal_fft_auto_scale, .check = fft_auto_scale_check, .digest = fft_auto_scale_digest};
