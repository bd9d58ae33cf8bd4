/*
 * MEAN, int16 (a 16x8 model's): TFLite's QuantizedMeanOrSum<int16_t> (an int32 sum per output, minus
 * input zero point x count, one requantization whose multiplier includes 1 / count, the int16 clamp).
 * Outputs in order, each summed over its reduced positions before it is written (the output may lie
 * over input no later output reads: mean16_access).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

/* Values one output sums at most: |sum - zero point x count| <= 65535 x this, shifted left by the
 * output shift, stays in int32 */
#define MAX_REDUCED_S16 (INT32_C(1) << 15)

vmcu_status vmcu_mean_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)params;
    int32_t stride[VMCU_MAX_DIMS], kept_dims[VMCU_MAX_DIMS], kept_strides[VMCU_MAX_DIMS];
    int32_t red_dims[VMCU_MAX_DIMS], red_strides[VMCU_MAX_DIMS];
    int32_t d, k, kept = 0, reduced = 0, outputs = 1, o, r;
    (void)ctx;
    stride[p->rank - 1] = 1;
    for (d = p->rank - 1; d > 0; --d) {
        stride[d - 1] = stride[d] * p->dims[d];
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->reduce[d]) {
            red_dims[reduced] = p->dims[d];
            red_strides[reduced++] = stride[d];
        } else {
            kept_dims[kept] = p->dims[d];
            kept_strides[kept++] = stride[d];
            outputs *= p->dims[d];
        }
    }
    for (o = 0; o < outputs; ++o) {
        int32_t base = 0, rest = o, sum = 0, shifted;
        int64_t v;
        for (k = kept - 1; k >= 0; --k) {
            base += (rest % kept_dims[k]) * kept_strides[k];
            rest /= kept_dims[k];
        }
        for (r = 0; r < p->count; ++r) {
            int32_t at = base, left = r;
            for (k = reduced - 1; k >= 0; --k) {
                at += (left % red_dims[k]) * red_strides[k];
                left /= red_dims[k];
            }
            sum += vmcu_load_signed(&inputs[0], (uint32_t)at, 2u);
        }
        shifted = sum - p->input_zero_point * p->count;
        v = (int64_t)vmcu_requantize(shifted, p->multiplier, p->shift) + p->output_zero_point;
        vmcu_store_signed(output, (uint32_t)o, 2u, (int32_t)(v < -32768 ? -32768 : (v > 32767 ? 32767 : v)));
    }
    return VMCU_OK;
}

/*
 * The input's dimensions to the byte of int16 elements; the kept ones to the output's; `count` the
 * number of values each output sums, few enough for the int32 sum and its left shift
 * (MAX_REDUCED_S16); zero points within int16; the shift within -31..31.
 */
static vmcu_status mean_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)step->params;
    int32_t kept[VMCU_MAX_DIMS], reduced[VMCU_MAX_DIMS];
    int32_t d, num_kept = 0, num_reduced = 0;
    uint32_t elements, outputs, count;
    if (step->num_inputs != 1u || !vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    elements = vmcu_product(p->dims, p->rank);
    if (elements == 0u || elements > UINT32_C(0x3FFFFFFF) || vmcu_input_bytes(model, step, 0u) != 2u * elements) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->reduce[d] > 1u) {
            return VMCU_ERROR_BAD_MODEL;
        }
        if (p->reduce[d]) {
            reduced[num_reduced++] = p->dims[d];
        } else {
            kept[num_kept++] = p->dims[d];
        }
    }
    outputs = vmcu_product(kept, num_kept);   /* 1 when every dimension is reduced */
    count = vmcu_product(reduced, num_reduced); /* 1 when none is */
    if (vmcu_output_bytes(model, step) != 2u * outputs || count != (uint32_t)p->count ||
        !vmcu_in_range(p->input_zero_point, -32768, 32767) || !vmcu_in_range(p->output_zero_point, -32768, 32767) ||
        !vmcu_in_range(p->shift, -31, 15) || count > ((uint32_t)MAX_REDUCED_S16 >> (p->shift > 0 ? p->shift : 0))) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t mean_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_mean_params *p = (const vmcu_mean_params *)step->params;
    const int32_t fields[5] = {p->count, p->input_zero_point, p->output_zero_point, p->multiplier, p->shift};
    int32_t d;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    for (d = 0; d < VMCU_MAX_DIMS; ++d) {
        crc = vmcu_crc32_u32(crc, p->reduce[d]);
    }
    return vmcu_crc32_i32s(crc, fields, 5u);
}

const vmcu_kernel vmcu_mean_s16_kernel = {.run = vmcu_mean_s16, .check = mean_s16_check, .digest = mean_s16_digest};
