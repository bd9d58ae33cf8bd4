/*
 * SignalFilterBank: per table channel, the weighted and the unweighted sums of its spectrum bins
 * in uint64; output channel c is table channel c + 1's weighted sum plus channel c's unweighted
 * one. An int16 weight converts to uint64 modulo 2^64 and the sums wrap, as TFLite Micro's uint64
 * accumulators do.
 */
#include "vmcu_signal.h"

void vmcu_signal_filter_bank_sums(const vmcu_signal_filter_bank_params *p, const uint32_t *spectrum, uint64_t *out)
{
    uint64_t carried = 0u; /* the previous table channel's unweighted sum */
    int32_t i, j;
    for (i = 0; i <= p->num_channels; ++i) {
        const uint32_t *bins = spectrum + p->frequency_starts[i];
        const int16_t *w = p->weights + p->weight_starts[i];
        const int16_t *u = p->unweights + p->weight_starts[i];
        uint64_t weighted = 0u, unweighted = 0u;
        for (j = 0; j < p->widths[i]; ++j) {
            weighted += (uint64_t)(int64_t)w[j] * (uint64_t)bins[j];
            unweighted += (uint64_t)(int64_t)u[j] * (uint64_t)bins[j];
        }
        if (i > 0 && i <= p->output_size) {
            out[i - 1] = carried + weighted;
        }
        carried = unweighted;
    }
}
