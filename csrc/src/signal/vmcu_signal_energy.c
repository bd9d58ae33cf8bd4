/*
 * SignalEnergy (TFLite Micro's signal library): re^2 + im^2 of the int16 (real, imag) pairs
 * [start, end) as uint32 (modulo 2^32, as TFLite Micro's int32 sum wraps), 0 for the others.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_signal_energy(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_signal_energy_params *p = (const vmcu_signal_energy_params *)params;
    int32_t i;
    (void)ctx;
    if (p->start < 0 || p->start > p->end || p->end > p->size) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->size; ++i) {
        uint32_t energy = 0u;
        if (i >= p->start && i < p->end) {
            const int32_t re = (int16_t)(uint16_t)vmcu_load_le(&inputs[0], 2u * (uint32_t)i, 2u);
            const int32_t im = (int16_t)(uint16_t)vmcu_load_le(&inputs[0], 2u * (uint32_t)i + 1u, 2u);
            energy = (uint32_t)(re * re) + (uint32_t)(im * im);
        }
        vmcu_store_le(output, (uint32_t)i, 4u, energy);
    }
    return VMCU_OK;
}

/* One input holding pairs up to end, an output of size uint32. */
static vmcu_status energy_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_energy_params *p = (const vmcu_signal_energy_params *)step->params;
    return step->num_inputs == 1u && p->size >= 1 && p->size <= INT32_MAX / 4 && p->start >= 0 &&
                   p->start <= p->end && p->end <= p->size &&
                   vmcu_input_bytes(model, step, 0u) >= 4u * (uint32_t)p->end &&
                   vmcu_output_bytes(model, step) == 4u * (uint32_t)p->size
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t energy_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_energy_params *p = (const vmcu_signal_energy_params *)step->params;
    const int32_t fields[3] = {p->size, p->start, p->end};
    return vmcu_crc32_i32s(crc, fields, 3u);
}

const vmcu_kernel vmcu_signal_energy_kernel = {
    .run = vmcu_signal_energy, .check = energy_check, .digest = energy_digest};
