/*
 * PRELU, int8: TFLite's reference_ops BroadcastPrelu4DSlow. Operand 1 is the input, operand 2
 * alpha; in the arithmetic, input 1's multiplier scales non-negative inputs and the output
 * multiplier input * alpha. Flat output segments, see vmcu_broadcast.h.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_broadcast.h"

static void prelu_run(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                      int32_t b_step, int8_t *out, int32_t len)
{
    const vmcu_binary_arith *q = &p->arith;
    int32_t i;
    for (i = 0; i < len; ++i) {
        const int32_t x = a[i * a_step] + q->input1_offset;
        const int32_t v = x >= 0 ? vmcu_requantize(x, q->input1_multiplier, q->input1_shift)
                                 : vmcu_requantize(x * (b[i * b_step] + q->input2_offset), q->output_multiplier,
                                                   q->output_shift);
        out[i] = (int8_t)vmcu_sat8(v + q->output_offset);
    }
}

vmcu_status vmcu_prelu_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output)
{
    const vmcu_binary_arith *q = &((const vmcu_elementwise_params *)params)->arith;
    /* checked before the run too (prelu_check); here it tells the compiler the shifts' ranges */
    if (q->input1_shift > 31 || q->input1_shift < -31 || q->output_shift > 31 || q->output_shift < -31) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, prelu_run);
}

/*
 * The walk, and PRELU's arithmetic: offsets of int8 zero points make a non-negative input at most
 * 255 and input x alpha at most 255 * 255 < 2^16 in size, so input 1's shift of at most 23 and
 * the output shift of at most 15 keep each below 2^31 before its multiplier (no wrap) and the
 * requantized value plus the output offset in int32; right shifts of at most 31. The result
 * saturates to int8: the clamp is not read.
 */
static vmcu_status prelu_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_binary_arith *q = &((const vmcu_elementwise_params *)step->params)->arith;
    return vmcu_broadcast_walk_ok(model, step) && vmcu_in_range(q->input1_offset, -127, 128) &&
                   vmcu_in_range(q->input2_offset, -127, 128) && vmcu_in_range(q->output_offset, -128, 127) &&
                   vmcu_in_range(q->input1_shift, -31, 23) && vmcu_in_range(q->output_shift, -31, 15)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

const vmcu_kernel vmcu_prelu_s8_kernel = {
    .run = vmcu_prelu_s8, .check = prelu_check, .digest = vmcu_elementwise_digest};
