/*
 * SignalFilterBankSpectralSubtraction: the noise estimate smoothed toward each channel's scaled-up
 * energy (even channels with the main coefficients, odd ones with the alternate), subtracted from
 * it, scaled back down, and floored at the energy's `min_signal_remaining` share. All in unsigned
 * arithmetic, wrapping as TFLite Micro's uint32 and uint64 expressions do.
 */
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
