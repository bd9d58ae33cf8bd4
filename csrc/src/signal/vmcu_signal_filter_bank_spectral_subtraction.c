/*
 * SignalFilterBankSpectralSubtraction: the noise estimate smoothed toward each channel's scaled-up
 * energy (even channels with the main coefficients, odd ones with the alternate), subtracted from
 * it, scaled back down, and floored at the energy's `min_signal_remaining` share. All in unsigned
 * arithmetic, wrapping as TFLite Micro's uint32 and uint64 expressions do.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_signal.h"

void vmcu_signal_spectral_subtraction(const vmcu_signal_spectral_subtraction_params *p, const uint32_t *in,
                                      uint32_t *out, uint32_t *noise)
{
    int32_t i;
    for (i = 0; i < p->num_channels; ++i) {
        const int odd = (i & 1) != 0;
        const uint64_t toward = odd ? p->alternate_smoothing : p->smoothing;
        const uint64_t keep = odd ? p->alternate_one_minus_smoothing : p->one_minus_smoothing;
        const uint32_t scaled = in[i] << p->smoothing_bits;
        uint32_t estimate = (uint32_t)(((uint64_t)scaled * toward + (uint64_t)noise[i] * keep) >>
                                       p->spectral_subtraction_bits);
        uint32_t floor, remaining;
        noise[i] = estimate;
        if (estimate > scaled) {
            estimate = scaled;
            if (p->clamping) {
                noise[i] = scaled;
            }
        }
        floor = (uint32_t)(((uint64_t)in[i] * p->min_signal_remaining) >> p->spectral_subtraction_bits);
        remaining = (scaled - estimate) >> p->smoothing_bits;
        out[i] = remaining > floor ? remaining : floor;
    }
}

/* The input then the output in the scratch (aligned to 4); the estimate in place in the state region. */
vmcu_status vmcu_signal_filter_bank_spectral_subtraction(const vmcu_context *ctx, const void *params,
                                                         const vmcu_view *inputs, const vmcu_view *output)
{
    const vmcu_signal_spectral_subtraction_params *p = (const vmcu_signal_spectral_subtraction_params *)params;
    uint32_t *in = (uint32_t *)(void *)vmcu_align_scratch(ctx->scratch, 4u), *out = in + p->num_channels;
    int32_t i;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->num_channels; ++i) {
        in[i] = (uint32_t)vmcu_load_le(&inputs[0], (uint32_t)i, 4u);
    }
    vmcu_signal_spectral_subtraction(p, in, out, (uint32_t *)(void *)(ctx->state + p->state_offset));
    for (i = 0; i < p->num_channels; ++i) {
        vmcu_store_le(output, (uint32_t)i, 4u, out[i]);
    }
    return VMCU_OK;
}

static vmcu_status spectral_subtraction_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_spectral_subtraction_params *p = (const vmcu_signal_spectral_subtraction_params *)step->params;
    const uint32_t bytes = 4u * (uint32_t)p->num_channels;
    if (step->num_inputs != 1u || !vmcu_in_range(p->num_channels, 1, 0x0FFFFFFF) || p->smoothing_bits > 31u ||
        p->spectral_subtraction_bits > 63u || vmcu_input_bytes(model, step, 0u) != bytes ||
        vmcu_output_bytes(model, step) != bytes || step->scratch < 2u * bytes + 3u ||
        !vmcu_state_holds(model, p->state_offset, bytes, 4u)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t spectral_subtraction_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_spectral_subtraction_params *p = (const vmcu_signal_spectral_subtraction_params *)step->params;
    const uint32_t fields[10] = {(uint32_t)p->num_channels,          p->smoothing,
                                 p->one_minus_smoothing,             p->alternate_smoothing,
                                 p->alternate_one_minus_smoothing, p->min_signal_remaining, p->smoothing_bits,
                                 p->spectral_subtraction_bits, (uint32_t)p->clamping, p->state_offset};
    uint32_t i;
    for (i = 0u; i < 10u; ++i) {
        crc = vmcu_crc32_u32(crc, fields[i]);
    }
    return crc;
}

const vmcu_kernel vmcu_signal_filter_bank_spectral_subtraction_kernel = {
    .run = vmcu_signal_filter_bank_spectral_subtraction, .check = spectral_subtraction_check,
    .digest = spectral_subtraction_digest};
