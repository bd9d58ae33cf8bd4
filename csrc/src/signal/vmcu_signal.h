/*
 * The arithmetic of the signal library's filter bank stages on plain arrays, apart from the pool:
 * the step kernels move their channels between the pool and the scratch and call these (and the
 * host tests call them directly).
 */
#ifndef VMCU_SIGNAL_H
#define VMCU_SIGNAL_H

#include "vmcu/vmcu_types.h"

/** The first address of `scratch` that is a multiple of `alignment` (a power of two; the step's scratch
 *  counts the alignment - 1 bytes this may skip). */
static inline int8_t *vmcu_align_scratch(int8_t *scratch, uint32_t alignment)
{
    const uintptr_t at = (uintptr_t)scratch;
    return scratch + ((alignment - (uint32_t)(at & (alignment - 1u))) & (alignment - 1u));
}

/** Bits needed to write x (0 for 0). */
static inline int32_t vmcu_bit_length(uint32_t x)
{
    int32_t n = 0;
    while (x != 0u) {
        x >>= 1;
        ++n;
    }
    return n;
}

void vmcu_signal_filter_bank_sums(const vmcu_signal_filter_bank_params *p, const uint32_t *spectrum, uint64_t *out);
uint32_t vmcu_signal_rounded_sqrt(uint64_t x);
void vmcu_signal_square_roots(const uint64_t *in, int32_t channels, int32_t shift, uint32_t *out);
void vmcu_signal_spectral_subtraction(const vmcu_signal_spectral_subtraction_params *p, const uint32_t *in,
                                      uint32_t *out, uint32_t *noise);
void vmcu_signal_pcan_apply(const vmcu_signal_pcan_params *p, const uint32_t *in, const uint32_t *noise, uint32_t *out);
void vmcu_signal_log_apply(const vmcu_signal_filter_bank_log_params *p, const uint32_t *in, int16_t *out);

#endif /* VMCU_SIGNAL_H */
