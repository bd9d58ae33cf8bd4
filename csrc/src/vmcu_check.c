/*
 * vmcu-tflite runtime: the checks and digests shared by several params structs (vmcu_check.h), and
 * the CRC-32 they fold into.
 */
#include "vmcu/vmcu_check.h"

/* The reflected CRC-32 polynomial's table by nibble: 64 bytes of flash, two lookups a byte. */
static const uint32_t crc_nibbles[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu};

uint32_t vmcu_crc32(uint32_t crc, const void *bytes, uint32_t n)
{
    const uint8_t *b = (const uint8_t *)bytes;
    uint32_t i;
    crc = ~crc;
    for (i = 0; i < n; ++i) {
        crc ^= b[i];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15u];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15u];
    }
    return ~crc;
}

uint32_t vmcu_crc32_u32(uint32_t crc, uint32_t value)
{
    uint8_t b[4];
    b[0] = (uint8_t)value;
    b[1] = (uint8_t)(value >> 8);
    b[2] = (uint8_t)(value >> 16);
    b[3] = (uint8_t)(value >> 24);
    return vmcu_crc32(crc, b, 4u);
}

uint32_t vmcu_crc32_i32s(uint32_t crc, const int32_t *values, uint32_t n)
{
    uint32_t i;
    for (i = 0; i < n; ++i) {
        crc = vmcu_crc32_u32(crc, (uint32_t)values[i]);
    }
    return crc;
}

uint32_t vmcu_dims_digest(uint32_t crc, const vmcu_dims *dims)
{
    const int32_t fields[4] = {dims->n, dims->h, dims->w, dims->c};
    return vmcu_crc32_i32s(crc, fields, 4u);
}

int vmcu_nhwc_ok(const vmcu_model *model, const vmcu_step *step, const vmcu_dims *input, const vmcu_dims *output)
{
    const uint32_t in_bytes = vmcu_dims_product(input), out_bytes = vmcu_dims_product(output);
    return in_bytes != 0u && out_bytes != 0u && in_bytes == vmcu_input_bytes(model, step, 0) &&
           out_bytes == vmcu_output_bytes(model, step) && output->n == input->n;
}

int vmcu_layer_ok(int32_t input_offset, int32_t output_offset, const vmcu_requant *requant)
{
    return vmcu_in_range(input_offset, -127, 128) && vmcu_in_range(output_offset, -128, 127) && requant != 0 &&
           vmcu_clamp_ok(requant->act_min, requant->act_max);
}

int vmcu_layer16_ok(int32_t input_offset, int32_t output_offset, const vmcu_requant *requant)
{
    return input_offset == 0 && output_offset == 0 && requant != 0 && requant->act_min <= requant->act_max &&
           vmcu_in_range(requant->act_min, -32768, 32767) && vmcu_in_range(requant->act_max, -32768, 32767);
}

int vmcu_binary_arith_ok(const vmcu_binary_arith *q)
{
    /* the scalings are multiplications below one (shifts <= 0), so each scaled input is at most
     * |(x + offset) << left| <= 255 * 2^22 and their sum (or difference) at most 255 * 2^23 < 2^31
     * minus the output offset's 128: no wrap before the output scaling, no overflow after it */
    return q != 0 && vmcu_in_range(q->input1_offset, -127, 128) && vmcu_in_range(q->input2_offset, -127, 128) &&
           vmcu_in_range(q->output_offset, -128, 127) && vmcu_in_range(q->left_shift, 0, 22) &&
           vmcu_in_range(q->input1_shift, -31, 0) && vmcu_in_range(q->input2_shift, -31, 0) &&
           vmcu_in_range(q->output_shift, -31, 0) && vmcu_clamp_ok(q->act_min, q->act_max);
}

uint32_t vmcu_layer_digest(uint32_t crc, int32_t input_offset, int32_t output_offset, const void *filter,
                           uint32_t filter_bytes, const void *bias, uint32_t channels, uint32_t bias_bytes,
                           const vmcu_requant *requant)
{
    crc = vmcu_crc32_u32(crc, (uint32_t)input_offset);
    crc = vmcu_crc32_u32(crc, (uint32_t)output_offset);
    crc = vmcu_crc32(crc, filter, filter_bytes);
    crc = vmcu_crc32(crc, bias, channels * bias_bytes);
    crc = vmcu_crc32(crc, requant->multiplier, channels * 4u);
    crc = vmcu_crc32(crc, requant->shift, channels);
    crc = vmcu_crc32_u32(crc, (uint32_t)requant->act_min);
    return vmcu_crc32_u32(crc, (uint32_t)requant->act_max);
}

uint32_t vmcu_binary_arith_digest(uint32_t crc, const vmcu_binary_arith *q)
{
    const int32_t fields[12] = {q->input1_offset, q->input2_offset, q->output_offset, q->left_shift,
                                q->input1_multiplier, q->input1_shift, q->input2_multiplier, q->input2_shift,
                                q->output_multiplier, q->output_shift, q->act_min, q->act_max};
    crc = vmcu_crc32_i32s(crc, fields, 12u);
    if (q->input1_scaled != 0) {
        crc = vmcu_crc32(crc, q->input1_scaled, 256u * 4u);
    }
    if (q->input2_scaled != 0) {
        crc = vmcu_crc32(crc, q->input2_scaled, 256u * 4u);
    }
    return crc;
}
