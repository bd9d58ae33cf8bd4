/*
 * int16 RELU, RELU6 and LEAKY_RELU (16x8 models), whole tensor (the output apart from its input), as
 * TFLite Micro's int16 ReluQuantized, Relu6Quantized and QuantizeLeakyRelu:
 *
 * RELU:       clamp(output_offset + rescale(x - input_offset, identity), act_min, act_max)
 * RELU6:      clamp(x, act_min, act_max), the raw value (TFLite Micro ignores the output's quantization)
 * LEAKY_RELU: as RELU for x >= input_offset, below it the alpha rescale of the magnitude's multiplier,
 *             negated for a negative alpha; clamped to int16.
 *
 * Each rescale is TFLite's MultiplyByQuantizedMultiplier; the check holds the offsets inside int16 and
 * the shifts at most 14, so |x - offset| < 2^16 shifted left stays inside int32 and the rescaled
 * value below 2^30.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_elementwise_s16.h"

enum { OP_RELU = 0, OP_RELU6 = 1, OP_LEAKY_RELU = 2 };

static int32_t load_s16(const vmcu_view *view, uint32_t element)
{
    const uint32_t bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

static int32_t unary(const vmcu_unary_s16_params *p, int32_t x)
{
    const int32_t value = x - p->input_offset;
    int32_t result;
    if (p->operation == OP_RELU6) {
        return vmcu_clamp(x, p->act_min, p->act_max);
    }
    if (p->operation == OP_RELU || value >= 0) {
        result = vmcu_requantize(value, p->identity_multiplier, p->identity_shift);
    } else if (p->alpha_multiplier < 0) {
        result = -vmcu_requantize(value, -p->alpha_multiplier, p->alpha_shift);
    } else {
        result = vmcu_requantize(value, p->alpha_multiplier, p->alpha_shift);
    }
    return vmcu_clamp(p->output_offset + result, p->act_min, p->act_max);
}

void vmcu_unary_s16_block(const vmcu_unary_s16_params *p, const int16_t *in, int16_t *out, int32_t n)
{
    int32_t i;
    if (p->operation == OP_RELU6) {
        for (i = 0; i < n; ++i) {
            out[i] = (int16_t)vmcu_clamp(in[i], p->act_min, p->act_max);
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        out[i] = (int16_t)unary(p, in[i]);
    }
}

vmcu_status vmcu_unary_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_unary_s16_params *p = (const vmcu_unary_s16_params *)params;
    int32_t i;
    (void)ctx;
    /* checked before the run too; here it tells the compiler the shifts' ranges */
    if (p->identity_shift < -31 || p->identity_shift > 14 || p->alpha_shift < -31 || p->alpha_shift > 14) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->size; ++i) {
        vmcu_store_le(output, (uint32_t)i, 2u, (uint64_t)(uint16_t)unary(p, load_s16(&inputs[0], (uint32_t)i)));
    }
    return VMCU_OK;
}

/* An operation, offsets and a clamp inside int16, the shifts and multipliers the comment above relies on. */
int vmcu_unary_s16_params_ok(const vmcu_unary_s16_params *p)
{
    return vmcu_in_range(p->operation, OP_RELU, OP_LEAKY_RELU) && vmcu_in_range(p->size, 1, 0x3FFFFFFF) &&
           vmcu_in_range(p->input_offset, -32768, 32767) && vmcu_in_range(p->output_offset, -32768, 32767) &&
           vmcu_in_range(p->act_min, -32768, 32767) && vmcu_in_range(p->act_max, p->act_min, 32767) &&
           vmcu_in_range(p->identity_shift, -31, 14) && vmcu_in_range(p->alpha_shift, -31, 14) &&
           p->identity_multiplier >= 0 && p->alpha_multiplier != INT32_MIN;
}

/* One input and the output of `size` int16 elements, and params vmcu_unary_s16_params_ok takes. */
static vmcu_status unary_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_unary_s16_params *p = (const vmcu_unary_s16_params *)step->params;
    if (step->num_inputs != 1u || !vmcu_unary_s16_params_ok(p) ||
        vmcu_output_bytes(model, step) != (uint32_t)p->size * 2u ||
        vmcu_input_bytes(model, step, 0u) != (uint32_t)p->size * 2u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order. */
static uint32_t unary_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_unary_s16_params *p = (const vmcu_unary_s16_params *)step->params;
    const int32_t fields[10] = {p->operation,        p->size,           p->input_offset,     p->output_offset,
                                p->identity_multiplier, p->identity_shift, p->alpha_multiplier, p->alpha_shift,
                                p->act_min,          p->act_max};
    return vmcu_crc32_i32s(crc, fields, 10u);
}

const vmcu_kernel vmcu_unary_s16_kernel = {.run = vmcu_unary_s16, .check = unary_s16_check,
                                           .digest = unary_s16_digest};
