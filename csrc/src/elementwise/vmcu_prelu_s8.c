/*
 * PRELU, int8: TFLite's reference_ops BroadcastPrelu4DSlow. Operand 1 is the input, operand 2
 * alpha; in the arithmetic, input 1's multiplier scales non-negative inputs and the output
 * multiplier input * alpha. Flat output segments, see vmcu_broadcast.h.
 */
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
    if (q->input1_shift > 31 || q->input1_shift < -31 || q->output_shift > 31 || q->output_shift < -31) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return vmcu_broadcast_binary(ctx, (const vmcu_elementwise_params *)params, inputs, output, prelu_run);
}
