/*
 * CONCATENATION, int8: the operands' rows joined along the axis (no requantization).
 *
 * Per outer row p, the operands' rows p are copied in operand order, first byte first. That is
 * the planner's `concatenation` pattern for whichever operand the output streams over (the
 * operands before it, then it and the rest), and a forward copy is safe on a streamed operand:
 * the plan never puts its destination after its source.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_concatenation_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output)
{
    const vmcu_concatenation_params *p = (const vmcu_concatenation_params *)params;
    int32_t activation[VMCU_MAX_STEP_INPUTS]; /* operand -> index in inputs, or -1 for a constant */
    int32_t count = 0, i, r;
    uint32_t dst = 0;
    if (p->num_operands < 1 || p->num_operands > VMCU_MAX_STEP_INPUTS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < p->num_operands; ++i) {
        activation[i] = p->constants[i] == 0 ? count++ : -1;
    }
    if (count != (int32_t)ctx->step->num_inputs) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (r = 0; r < p->outer; ++r) {
        for (i = 0; i < p->num_operands; ++i) {
            const uint32_t len = (uint32_t)p->inner[i], src = (uint32_t)r * len;
            if (activation[i] < 0) {
                vmcu_write(output, dst, p->constants[i] + src, len);
            } else {
                vmcu_copy(output, dst, &inputs[activation[i]], src, len);
            }
            dst += len;
        }
    }
    return VMCU_OK;
}
