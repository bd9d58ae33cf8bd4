/*
 * MUL, int8: TFLite's reference_integer_ops MulElementwise with numpy broadcasting.
 *
 * (x1 + offset1) * (x2 + offset2) in int32, times one Q31 multiplier, plus the output zero
 * point. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void mul_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                    int32_t b_step, int8_t *out, int32_t len)
{
    const vmcu_binary_arith *q = &p->arith;
    int32_t i;
    for (i = 0; i < len; ++i) {
        const int32_t product = ((int32_t)a[i * a_step] + q->input1_offset) * ((int32_t)b[i * b_step] + q->input2_offset);
        const int32_t v = vmcu_requantize(product, q->output_multiplier, q->output_shift) + q->output_offset;
        out[i] = (int8_t)vmcu_clamp(v, q->act_min, q->act_max);
    }
}

vmcu_status vmcu_mul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, mul_run);
}

/*
 * The walk, and MUL's arithmetic: offsets of int8 zero points make |product| <= 255 * 255 < 2^16,
 * so an output shift of at most 15 keeps it below 2^31 before the multiplier (no wrap) and the
 * requantized value plus the output offset in int32; a right shift of at most 31; a clamp within
 * int8. The ADD-only fields are not read.
 */
static vmcu_status mul_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_binary_arith *q = &((const vmcu_elementwise_params *)step->params)->arith;
    return vmcu_broadcast_walk_ok(model, step) && vmcu_in_range(q->input1_offset, -127, 128) &&
                   vmcu_in_range(q->input2_offset, -127, 128) && vmcu_in_range(q->output_offset, -128, 127) &&
                   vmcu_in_range(q->output_shift, -31, 15) && vmcu_clamp_ok(q->act_min, q->act_max)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

const vmcu_kernel vmcu_mul_s8_kernel = {.run = vmcu_mul_s8, .check = mul_check, .digest = vmcu_elementwise_digest};
