/*
 * SVDF, int8 input and output, int16 time weights and state (whole tensor: the output is apart).
 *
 * Per run and batch row: the state [filters][memory] moves one time step toward its start (the
 * oldest value leaves), the newest column gets each filter's feature projection of the input,
 * requantized to the state's int16 scale; then each filter's row of state is weighted by its time
 * weights, each unit sums its `rank` filters and its bias, and the sum is requantized to int8.
 * Sums wrap modulo 2^32 as TFLite's int32 sums do (done in uint32: no signed overflow).
 */
#include "vmcu/vmcu_check.h"
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

/*
 * The input [batch][input_size] and the output [batch][units] exactly their tensors' bytes, one
 * input row in the scratch; filters = units x rank, so the feature weights [filters][input_size],
 * the time weights [filters][memory] and the bias [units] are the arrays the converter emitted for
 * these shapes; the state [batch][filters][memory] int16 exactly one variable of the state region.
 * The state takes any feature requantization (saturated to int16); the output's right shift keeps
 * the requantized sum within 2^30, so adding the zero point cannot overflow.
 */
static vmcu_status svdf_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_svdf_params *p = (const vmcu_svdf_params *)step->params;
    const int32_t state_shape[4] = {p->batch, p->filters, p->memory, 2};
    const uint32_t in_bytes = vmcu_times(p->batch, p->input_size), out_bytes = vmcu_times(p->batch, p->units);
    if (in_bytes == 0u || out_bytes == 0u || in_bytes != vmcu_input_bytes(model, step, 0) ||
        out_bytes != vmcu_output_bytes(model, step) || (uint32_t)p->input_size > step->scratch ||
        vmcu_times(p->units, p->rank) == 0u || (uint32_t)p->filters != vmcu_times(p->units, p->rank) ||
        vmcu_times(p->filters, p->input_size) == 0u ||
        !vmcu_state_holds(model, p->state_offset, vmcu_product(state_shape, 4), 2u) ||
        p->weights_feature == 0 || p->weights_time == 0 || p->bias == 0 ||
        !vmcu_in_range(p->input_offset, -127, 128) || !vmcu_in_range(p->output_offset, -128, 127) ||
        !vmcu_in_range(p->feature_shift, -31, 31) || !vmcu_in_range(p->output_shift, -31, -1)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t svdf_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_svdf_params *p = (const vmcu_svdf_params *)step->params;
    const int32_t fields[12] = {p->batch, p->input_size, p->filters, p->units, p->rank, p->memory,
                                p->input_offset, p->output_offset, p->feature_multiplier, p->feature_shift,
                                p->output_multiplier, p->output_shift};
    crc = vmcu_crc32_i32s(crc, fields, 12u);
    crc = vmcu_crc32_u32(crc, p->state_offset);
    crc = vmcu_crc32(crc, p->weights_feature, (uint32_t)p->filters * (uint32_t)p->input_size);
    crc = vmcu_crc32(crc, p->weights_time, (uint32_t)p->filters * (uint32_t)p->memory * 2u);
    return vmcu_crc32(crc, p->bias, (uint32_t)p->units * 4u);
}

const vmcu_kernel vmcu_svdf_s8_kernel = {.run = vmcu_svdf_s8, .check = svdf_check, .digest = svdf_digest};
