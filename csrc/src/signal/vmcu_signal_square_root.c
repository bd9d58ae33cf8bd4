/*
 * SignalFilterBankSquareRoot: the root rounded as the signal library rounds it. The digit-by-digit
 * loop gives floor(sqrt(x)) and the remainder x - root^2; the root goes up by one when the
 * remainder exceeds it, unless it already is the largest the library's routine returns (its
 * 32-bit routine, used for x < 2^32, returns 16 bits).
 */
#include "vmcu_signal.h"

uint32_t vmcu_signal_rounded_sqrt(uint64_t x)
{
    const uint64_t top = (x >> 32) == 0u ? 0xFFFFu : 0xFFFFFFFFu;
    uint64_t rest = x, root = 0u, bit = (uint64_t)1 << 62;
    while (bit > rest) {
        bit >>= 2;
    }
    while (bit != 0u) {
        if (rest >= root + bit) {
            rest -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    if (rest > root && root != top) {
        ++root;
    }
    return (uint32_t)root;
}

/* shift in 0..31 (the caller checks it: TFLite Micro's uint32 shift by more is undefined) */
void vmcu_signal_square_roots(const uint64_t *in, int32_t channels, int32_t shift, uint32_t *out)
{
    int32_t i;
    for (i = 0; i < channels; ++i) {
        out[i] = vmcu_signal_rounded_sqrt(in[i]) >> shift;
    }
}
