/*
 * SignalFilterBank: per table channel, the weighted and the unweighted sums of its spectrum bins
 * in uint64; output channel c is table channel c + 1's weighted sum plus channel c's unweighted
 * one. An int16 weight converts to uint64 modulo 2^64 and the sums wrap, as TFLite Micro's uint64
 * accumulators do.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

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

/* Whole tensor: the sums (uint64) then the spectrum (uint32) in the scratch, aligned to 8. */
vmcu_status vmcu_signal_filter_bank(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output)
{
    const vmcu_signal_filter_bank_params *p = (const vmcu_signal_filter_bank_params *)params;
    uint64_t *sums = (uint64_t *)(void *)vmcu_align_scratch(ctx->scratch, 8u);
    uint32_t *spectrum = (uint32_t *)(void *)(sums + p->output_size);
    int32_t i;
    for (i = 0; i < p->input_size; ++i) {
        spectrum[i] = (uint32_t)vmcu_load_le(&inputs[0], (uint32_t)i, 4u);
    }
    vmcu_signal_filter_bank_sums(p, spectrum, sums);
    for (i = 0; i < p->output_size; ++i) {
        vmcu_store_le(output, (uint32_t)i, 8u, sums[i]);
    }
    return VMCU_OK;
}

/*
 * The converter emits only the channels the output needs (num_channels = output_size, so the tables
 * have output_size + 1 entries) and the weights up to the last one a channel reaches (weights_size):
 * every length is tied to the output tensor's bytes. Every channel's bins inside the spectrum; the
 * input and output exactly their tensors; the scratch holds both arrays after aligning.
 */
static vmcu_status filter_bank_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_filter_bank_params *p = (const vmcu_signal_filter_bank_params *)step->params;
    int32_t i, reach = 1;
    if (step->num_inputs != 1u || !vmcu_in_range(p->num_channels, 1, 0x7FFF) || p->output_size != p->num_channels ||
        p->weights == 0 ||
        p->unweights == 0 || p->frequency_starts == 0 || p->weight_starts == 0 || p->widths == 0 ||
        !vmcu_in_range(p->input_size, 1, 0x7FFF) || !vmcu_in_range(p->output_size, 1, p->num_channels) ||
        !vmcu_in_range(p->weights_size, 1, 0x7FFF) ||
        vmcu_input_bytes(model, step, 0u) != 4u * (uint32_t)p->input_size ||
        vmcu_output_bytes(model, step) != 8u * (uint32_t)p->output_size ||
        step->scratch < 8u * (uint32_t)p->output_size + 4u * (uint32_t)p->input_size + 7u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i <= p->num_channels; ++i) {
        const int32_t width = p->widths[i];
        if (width > 0) {
            if (p->frequency_starts[i] < 0 || p->frequency_starts[i] + width > p->input_size ||
                p->weight_starts[i] < 0) {
                return VMCU_ERROR_BAD_MODEL;
            }
            reach = vmcu_max(reach, p->weight_starts[i] + width);
        }
    }
    return reach == p->weights_size ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static uint32_t filter_bank_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_filter_bank_params *p = (const vmcu_signal_filter_bank_params *)step->params;
    const int32_t fields[4] = {p->num_channels, p->input_size, p->output_size, p->weights_size};
    const uint32_t table = 2u * (uint32_t)(p->num_channels + 1);
    crc = vmcu_crc32_i32s(crc, fields, 4u);
    crc = vmcu_crc32(crc, p->weights, 2u * (uint32_t)p->weights_size);
    crc = vmcu_crc32(crc, p->unweights, 2u * (uint32_t)p->weights_size);
    crc = vmcu_crc32(crc, p->frequency_starts, table);
    crc = vmcu_crc32(crc, p->weight_starts, table);
    return vmcu_crc32(crc, p->widths, table);
}

const vmcu_kernel vmcu_signal_filter_bank_kernel = {
    .run = vmcu_signal_filter_bank, .check = filter_bank_check, .digest = filter_bank_digest};
