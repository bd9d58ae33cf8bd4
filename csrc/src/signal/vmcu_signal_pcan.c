/*
 * SignalPCAN: each energy times the gain its noise estimate reads from the wide dynamic function's
 * table, shifted down to an SNR, then shrunk (quadratic below 2 << 12, linear above; 6 output bits).
 */
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

void vmcu_signal_pcan(const vmcu_signal_pcan_params *p, const uint32_t *in, const uint32_t *noise, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < p->channels; ++i) {
        const uint32_t gain = (uint32_t)(int32_t)pcan_gain(noise[i], p->gain_lut); /* a negative gain wraps */
        out[i] = pcan_shrink((uint32_t)(((uint64_t)in[i] * gain) >> p->snr_shift));
    }
}
