/*
 * CAST between integer types (int8, int16, int32, uint32), as TFLite Micro's static_cast: the
 * input element sign- or zero-extended, then its low bits as the output element (modulo 2^bits).
 * Elements are read and written little-endian through the view, one at a time (whole tensor).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* Bytes of an element of the types a cast takes, 0 for any other. */
static uint32_t cast_size(uint8_t type)
{
    switch (type) {
    case VMCU_TYPE_INT8:
        return 1u;
    case VMCU_TYPE_INT16:
        return 2u;
    case VMCU_TYPE_INT32:
    case VMCU_TYPE_UINT32:
        return 4u;
    default:
        return 0u;
    }
}

vmcu_status vmcu_cast(const vmcu_context *ctx, const void *params, const vmcu_view *inputs, const vmcu_view *output)
{
    const vmcu_cast_params *p = (const vmcu_cast_params *)params;
    const uint32_t in_size = cast_size(p->input_type), out_size = cast_size(p->output_type);
    const int is_signed = p->input_type != VMCU_TYPE_UINT32;
    int32_t i;
    (void)ctx;
    if (in_size == 0u || out_size == 0u || p->count < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->count; ++i) {
        uint64_t value = vmcu_load_le(&inputs[0], (uint32_t)i, in_size);
        const uint64_t sign = (uint64_t)1 << (8u * in_size - 1u);
        if (is_signed && (value & sign) != 0u) {
            value |= ~((sign << 1) - 1u); /* sign-extend: every bit above the input's */
        }
        vmcu_store_le(output, (uint32_t)i, out_size, value);
    }
    return VMCU_OK;
}

/* One input of count elements of its type, an output of count elements of its own, to the byte. */
static vmcu_status cast_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_cast_params *p = (const vmcu_cast_params *)step->params;
    const uint32_t in_size = cast_size(p->input_type), out_size = cast_size(p->output_type);
    return step->num_inputs == 1u && in_size != 0u && out_size != 0u && p->count >= 1 &&
                   (uint32_t)p->count <= UINT32_C(0x7FFFFFFF) / 4u &&
                   vmcu_input_bytes(model, step, 0u) == (uint32_t)p->count * in_size &&
                   vmcu_output_bytes(model, step) == (uint32_t)p->count * out_size
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t cast_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_cast_params *p = (const vmcu_cast_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->count);
    crc = vmcu_crc32_u32(crc, p->input_type);
    return vmcu_crc32_u32(crc, p->output_type);
}

const vmcu_kernel vmcu_cast_kernel = {.run = vmcu_cast, .check = cast_check, .digest = cast_digest};
