/*
 * int16 PRELU (16x8 models) with a constant int8 alpha, as TFLite Micro's BroadcastPrelu4DSlow for
 * int16 data: v = x + input_offset; v >= 0: rescale(v, identity); else rescale(v * (alpha +
 * alpha_offset), alpha multiplier); plus output_offset, clamped to int16. Each rescale is TFLite's
 * MultiplyByQuantizedMultiplier; the check holds |v| < 2^16 (offsets inside int16), |v * alpha| < 2^24
 * and the left shifts at most 14 and 6, so nothing overflows int32.
 *
 * The output is walked in flat order, element by element (read input element i, write output element
 * i), alpha by its strides; elements are 2 bytes of the pool, little-endian.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_broadcast.h"

static int32_t load_s16(const vmcu_view *view, uint32_t element)
{
    const uint32_t bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

vmcu_status vmcu_prelu_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_prelu_s16_params *p = (const vmcu_prelu_s16_params *)params;
    int32_t index[VMCU_MAX_DIMS] = {0};
    uint32_t a = 0u, i;
    const uint32_t total = vmcu_product(p->dims, p->rank);
    (void)ctx;
    /* checked before the run too; here it tells the compiler the shifts' ranges */
    if (p->identity_shift < -31 || p->identity_shift > 14 || p->alpha_shift < -31 || p->alpha_shift > 6) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0u; i < total; ++i) {
        const int32_t v = load_s16(&inputs[0], i) + p->input_offset;
        int32_t y, d;
        if (v >= 0) {
            y = vmcu_requantize(v, p->identity_multiplier, p->identity_shift);
        } else {
            y = vmcu_requantize(v * ((int32_t)p->alpha[a] + p->alpha_offset), p->alpha_multiplier, p->alpha_shift);
        }
        vmcu_store_le(output, i, 2u, (uint64_t)(uint16_t)vmcu_clamp(y + p->output_offset, -32768, 32767));
        for (d = p->rank - 1; d >= 0; --d) { /* the odometer: the innermost dimension moves first */
            a += (uint32_t)p->alpha_strides[d];
            if (++index[d] < p->dims[d]) {
                break;
            }
            index[d] = 0;
            a -= (uint32_t)p->alpha_strides[d] * (uint32_t)p->dims[d];
        }
    }
    return VMCU_OK;
}

/* One input and the output of the walk's int16 elements, alpha's walk exactly its elements, offsets
 * and shifts the comment above relies on. */
static vmcu_status prelu_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_prelu_s16_params *p = (const vmcu_prelu_s16_params *)step->params;
    uint32_t total;
    int32_t d;
    if (step->num_inputs != 1u || !vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || p->alpha == 0 ||
        p->alpha_size < 1 || !vmcu_in_range(p->input_offset, -32767, 32768) ||
        !vmcu_in_range(p->alpha_offset, -127, 128) || !vmcu_in_range(p->output_offset, -32768, 32767) ||
        !vmcu_in_range(p->identity_shift, -31, 14) || !vmcu_in_range(p->alpha_shift, -31, 6) ||
        p->identity_multiplier < 0 || p->alpha_multiplier < 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->alpha_strides[d] < 0) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    total = vmcu_product(p->dims, p->rank);
    if (total == 0u || total > UINT32_C(0x3FFFFFFF) || total * 2u != vmcu_output_bytes(model, step) ||
        total * 2u != vmcu_input_bytes(model, step, 0u) ||
        vmcu_walk_span(p->dims, p->alpha_strides, p->rank, UINT32_C(0x7FFFFFFF)) != (uint32_t)p->alpha_size) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order, alpha's bytes where its pointer is. */
static uint32_t prelu_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_prelu_s16_params *p = (const vmcu_prelu_s16_params *)step->params;
    const int32_t tail[7] = {p->input_offset,   p->alpha_offset,        p->output_offset, p->identity_multiplier,
                             p->identity_shift, p->alpha_multiplier,   p->alpha_shift};
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->alpha_strides, VMCU_MAX_DIMS);
    crc = vmcu_crc32(crc, p->alpha, (uint32_t)p->alpha_size);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->alpha_size);
    return vmcu_crc32_i32s(crc, tail, 7u);
}

const vmcu_kernel vmcu_prelu_s16_kernel = {.run = vmcu_prelu_s16, .check = prelu_s16_check,
                                           .digest = prelu_s16_digest};
