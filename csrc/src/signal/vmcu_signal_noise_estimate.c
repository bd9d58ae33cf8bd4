/*
 * NOISE_ESTIMATE: a SignalFilterBankSpectralSubtraction's second output, its noise estimate, which
 * the op keeps in the state region (vmcu_signal_filter_bank_spectral_subtraction.c), copied into the
 * output tensor after the op has run.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* NOISE_ESTIMATE: the estimate copied from the state region into the op's second output (its input,
 * the op's first output, only orders it after the op). */
vmcu_status vmcu_signal_noise_estimate(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output)
{
    const vmcu_signal_noise_estimate_params *p = (const vmcu_signal_noise_estimate_params *)params;
    const uint32_t *noise;
    int32_t i;
    (void)inputs;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    noise = (const uint32_t *)(const void *)(ctx->state + p->state_offset);
    for (i = 0; i < p->num_channels; ++i) {
        vmcu_store_le(output, (uint32_t)i, 4u, noise[i]);
    }
    return VMCU_OK;
}

static vmcu_status noise_estimate_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_noise_estimate_params *p = (const vmcu_signal_noise_estimate_params *)step->params;
    const uint32_t bytes = 4u * (uint32_t)p->num_channels;
    return step->num_inputs == 1u && vmcu_in_range(p->num_channels, 1, 0x0FFFFFFF) &&
                   vmcu_output_bytes(model, step) == bytes && vmcu_state_holds(model, p->state_offset, bytes, 4u)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t noise_estimate_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_noise_estimate_params *p = (const vmcu_signal_noise_estimate_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->num_channels);
    return vmcu_crc32_u32(crc, p->state_offset);
}

const vmcu_kernel vmcu_signal_noise_estimate_kernel = {
    .run = vmcu_signal_noise_estimate, .check = noise_estimate_check, .digest = noise_estimate_digest};
