/*
 * REQUANTIZE: the QUANTIZEs of a 16x8 model between integer types (int8 -> int16 or int32, int16 ->
 * int8, int16 or int32), TFLite's reference Requantize: (x - input zero point) times the Q31
 * multiplier of input scale / output scale, plus the output zero point, saturated to the output
 * type. Element by element over the whole tensor (the output is apart from the input).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

/* Element `i` of a run of 1- or 2-byte signed elements that does not cross the end of the pool. */
static inline int32_t element_at(const int8_t *run, uint32_t size, int32_t i)
{
    return size == 1u ? run[i] : ((const int16_t *)(const void *)run)[i];
}

vmcu_status vmcu_requantize_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output)
{
    const vmcu_requantize_params *p = (const vmcu_requantize_params *)params;
    const uint32_t in_size = (uint32_t)p->input_bytes, out_size = (uint32_t)p->output_bytes;
    const int64_t lo = vmcu_type_min(out_size), hi = vmcu_type_max(out_size);
    const int8_t *in = 0;
    int8_t *out = 0;
    int32_t i;
    (void)ctx;
    if (in_size <= 2u && out_size <= 2u && p->count > 0) {
        /* the int8 <-> int16 conversions of whole tensors that do not cross the end of the pool (int16 ones
         * aligned): the same reads and writes in the same order, through pointers */
        in = in_size == 1u ? vmcu_span(&inputs[0], 0u, (uint32_t)p->count)
                           : (const int8_t *)(const void *)vmcu_span16(&inputs[0], 0u, (uint32_t)p->count * 2u);
        out = out_size == 1u ? vmcu_span_out(output, 0u, (uint32_t)p->count)
                             : (int8_t *)(uintptr_t)vmcu_span16(output, 0u, (uint32_t)p->count * 2u);
    }
    if (in != 0 && out != 0) {
        for (i = 0; i < p->count; ++i) {
            const int32_t x = element_at(in, in_size, i) - p->input_zero_point;
            const int64_t v = (int64_t)vmcu_requantize(x, p->multiplier, p->shift) + p->output_zero_point;
            const int32_t clamped = (int32_t)(v < lo ? lo : (v > hi ? hi : v));
            if (out_size == 1u) {
                out[i] = (int8_t)clamped;
            } else {
                ((int16_t *)(void *)out)[i] = (int16_t)clamped;
            }
        }
        return VMCU_OK;
    }
    for (i = 0; i < p->count; ++i) {
        const int32_t x = vmcu_load_signed(&inputs[0], (uint32_t)i, in_size) - p->input_zero_point;
        const int64_t v = (int64_t)vmcu_requantize(x, p->multiplier, p->shift) + p->output_zero_point;
        vmcu_store_signed(output, (uint32_t)i, out_size, (int32_t)(v < lo ? lo : (v > hi ? hi : v)));
    }
    return VMCU_OK;
}

/*
 * Element sizes of a conversion TFLite Micro makes (not int8 -> int8: QUANTIZE's), count elements of
 * each to the byte, zero points within their types, and a left shift that keeps every (x - zero
 * point) * 2^shift within int32 (TFLite shifts it as an int32).
 */
static vmcu_status requantize_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_requantize_params *p = (const vmcu_requantize_params *)step->params;
    const uint32_t in_size = (uint32_t)p->input_bytes, out_size = (uint32_t)p->output_bytes;
    int64_t largest;
    if (step->num_inputs != 1u || !((in_size == 1u && (out_size == 2u || out_size == 4u)) ||
                                    (in_size == 2u && (out_size == 1u || out_size == 2u || out_size == 4u))) ||
        p->count < 1 || (uint32_t)p->count > UINT32_C(0x7FFFFFFF) / 4u ||
        vmcu_input_bytes(model, step, 0u) != (uint32_t)p->count * in_size ||
        vmcu_output_bytes(model, step) != (uint32_t)p->count * out_size ||
        !vmcu_in_range(p->input_zero_point, vmcu_type_min(in_size), vmcu_type_max(in_size)) ||
        !vmcu_in_range(p->output_zero_point, vmcu_type_min(out_size), vmcu_type_max(out_size)) ||
        !vmcu_in_range(p->shift, -31, 31)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    largest = (int64_t)vmcu_type_max(in_size) - p->input_zero_point;
    if ((int64_t)p->input_zero_point - vmcu_type_min(in_size) > largest) {
        largest = (int64_t)p->input_zero_point - vmcu_type_min(in_size);
    }
    return p->shift <= 0 || largest * ((int64_t)1 << p->shift) <= INT32_MAX ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static uint32_t requantize_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_requantize_params *p = (const vmcu_requantize_params *)step->params;
    const int32_t fields[7] = {p->count, p->input_bytes, p->output_bytes, p->input_zero_point,
                               p->output_zero_point, p->multiplier, p->shift};
    return vmcu_crc32_i32s(crc, fields, 7u);
}

const vmcu_kernel vmcu_requantize_s16_kernel = {
    .run = vmcu_requantize_s16, .check = requantize_check, .digest = requantize_digest};
