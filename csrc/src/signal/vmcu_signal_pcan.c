/*
 * SignalPCAN: each energy times the gain its noise estimate reads from the wide dynamic function's
 * table, shifted down to an SNR, then shrunk (quadratic below 2 << 12, linear above; 6 output bits).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_signal.h"

#define PCAN_SNR_BITS 12
#define PCAN_OUTPUT_BITS 6

/* The table's quadratic over the segment of the estimate's highest set bit, evaluated at the next 10
 * bits: every product stays below 2^31 for any int16 coefficients (1023 x 2^15 >> 5, plus 2^20, times
 * 1023). The int16 result wraps. */
static int16_t pcan_gain(uint32_t noise, const int16_t *lut)
{
    int32_t top, frac, curve, value;
    const int16_t *segment;
    uint32_t low16;
    if (noise <= 2u) {
        return lut[noise];
    }
    top = vmcu_bit_length(noise);
    segment = lut + 4 * top - 6;
    frac = (int32_t)(((top < 11) ? (noise << (11 - top)) : (noise >> (top - 11))) & 0x3FFu);
    curve = (((int32_t)segment[2] * frac) >> 5) + (int32_t)segment[1] * 32;
    value = ((curve * frac + (1 << 14)) >> 15) + segment[0];
    low16 = (uint32_t)value & 0xFFFFu;
    return (int16_t)(low16 >= 0x8000u ? (int32_t)low16 - 0x10000 : (int32_t)low16);
}

static uint32_t pcan_shrink(uint32_t snr)
{
    if (snr < (2u << PCAN_SNR_BITS)) {
        return (snr * snr) >> (2 + 2 * PCAN_SNR_BITS - PCAN_OUTPUT_BITS);
    }
    return (snr >> (PCAN_SNR_BITS - PCAN_OUTPUT_BITS)) - (1u << PCAN_OUTPUT_BITS);
}

static uint32_t pcan_channel(const vmcu_signal_pcan_params *p, uint32_t energy, uint32_t noise)
{
    const uint32_t gain = (uint32_t)(int32_t)pcan_gain(noise, p->gain_lut); /* a negative gain wraps */
    return pcan_shrink((uint32_t)(((uint64_t)energy * gain) >> p->snr_shift));
}

void vmcu_signal_pcan_apply(const vmcu_signal_pcan_params *p, const uint32_t *in, const uint32_t *noise, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < p->channels; ++i) {
        out[i] = pcan_channel(p, in[i], noise[i]);
    }
}

/* Element by element through the views (whole tensor). */
vmcu_status vmcu_signal_pcan(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                 const vmcu_view *output)
{
    const vmcu_signal_pcan_params *p = (const vmcu_signal_pcan_params *)params;
    int32_t i;
    (void)ctx;
    for (i = 0; i < p->channels; ++i) {
        vmcu_store_le(output, (uint32_t)i, 4u,
                      pcan_channel(p, (uint32_t)vmcu_load_le(&inputs[0], (uint32_t)i, 4u),
                                   (uint32_t)vmcu_load_le(&inputs[1], (uint32_t)i, 4u)));
    }
    return VMCU_OK;
}

static vmcu_status pcan_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_pcan_params *p = (const vmcu_signal_pcan_params *)step->params;
    const uint32_t bytes = 4u * (uint32_t)p->channels;
    return step->num_inputs == 2u && vmcu_in_range(p->channels, 1, 0x0FFFFFFF) && vmcu_in_range(p->snr_shift, 0, 63) &&
                   p->gain_lut != 0 && vmcu_input_bytes(model, step, 0u) == bytes &&
                   vmcu_input_bytes(model, step, 1u) == bytes && vmcu_output_bytes(model, step) == bytes
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t pcan_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_pcan_params *p = (const vmcu_signal_pcan_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->channels);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->snr_shift);
    return vmcu_crc32(crc, p->gain_lut, 2u * VMCU_PCAN_LUT_SIZE);
}

const vmcu_kernel vmcu_signal_pcan_kernel = {.run = vmcu_signal_pcan, .check = pcan_check, .digest = pcan_digest};
