/*
 * SVDF, int8 input and output, int16 time weights and state (whole tensor: the output is apart).
 *
 * Per run and batch row: the state [filters][memory] moves one time step toward its start (the
 * oldest value leaves), the newest column gets each filter's feature projection of the input,
 * requantized to the state's int16 scale; then each filter's row of state is weighted by its time
 * weights, each unit sums its `rank` filters and its bias, and the sum is requantized to int8.
 * Sums wrap modulo 2^32 as TFLite's int32 sums do (done in uint32: no signed overflow).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_svdf_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output)
{
    const vmcu_svdf_params *p = (const vmcu_svdf_params *)params;
    int8_t *row = ctx->scratch;
    int32_t b, f, u, r, k;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (b = 0; b < p->batch; ++b) {
        int16_t *state = (int16_t *)(void *)(ctx->state + p->state_offset) + b * p->filters * p->memory;
        vmcu_read(&inputs[0], (uint32_t)(b * p->input_size), row, (uint32_t)p->input_size);
        for (f = 0; f < p->filters; ++f) {
            int16_t *memory = state + f * p->memory;
            const int8_t *weights = p->weights_feature + f * p->input_size;
            uint32_t dot = 0;
            for (k = 0; k + 1 < p->memory; ++k) {
                memory[k] = memory[k + 1];
            }
            for (k = 0; k < p->input_size; ++k) {
                dot += (uint32_t)((int32_t)weights[k] * ((int32_t)row[k] + p->input_offset));
            }
            memory[p->memory - 1] =
                (int16_t)vmcu_clamp(vmcu_requantize((int32_t)dot, p->feature_multiplier, p->feature_shift), -32768,
                                    32767);
        }
        for (u = 0; u < p->units; ++u) {
            uint32_t sum = (uint32_t)p->bias[u];
            for (r = 0; r < p->rank; ++r) {
                const int32_t filter = u * p->rank + r;
                const int16_t *memory = state + filter * p->memory;
                const int16_t *weights = p->weights_time + filter * p->memory;
                for (k = 0; k < p->memory; ++k) {
                    sum += (uint32_t)((int32_t)weights[k] * (int32_t)memory[k]);
                }
            }
            vmcu_put(output, (uint32_t)(b * p->units + u),
                     (int8_t)vmcu_sat8(vmcu_requantize((int32_t)sum, p->output_multiplier, p->output_shift) +
                                       p->output_offset));
        }
    }
    return VMCU_OK;
}
