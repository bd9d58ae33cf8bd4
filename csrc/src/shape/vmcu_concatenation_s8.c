/*
 * CONCATENATION and PACK, int8: the operands' rows joined along the axis (no requantization).
 *
 * Per outer row p, the operands' rows p are copied in operand order, first byte first. That is
 * the planner's `concatenation` pattern for whichever operand the output streams over (the
 * operands before it, then it and the rest), and a forward copy is safe on a streamed operand:
 * the plan never puts its destination after its source.
 */
#include "vmcu/vmcu_check.h"
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

/*
 * One input per activation operand (in operand order), each of outer x inner bytes to the byte
 * (a constant's length is outer x inner: its digest reads that many); the rows together fill the
 * output to the byte; no constant past the operands (the digest would read it).
 */
static vmcu_status concatenation_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_concatenation_params *p = (const vmcu_concatenation_params *)step->params;
    uint32_t row = 0u, activations = 0u;
    int32_t i;
    if (!vmcu_in_range(p->num_operands, 1, VMCU_MAX_STEP_INPUTS) || p->outer < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < VMCU_MAX_STEP_INPUTS; ++i) {
        if (i >= p->num_operands) {
            if (p->constants[i] != 0) {
                return VMCU_ERROR_BAD_MODEL;
            }
            continue;
        }
        /* the operand's bytes fit int32, and so does the output row they add to */
        if (vmcu_times(p->outer, p->inner[i]) == 0u || (uint32_t)p->inner[i] > UINT32_C(0x7FFFFFFF) - row ||
            (p->constants[i] == 0 &&
             vmcu_times(p->outer, p->inner[i]) != vmcu_input_bytes(model, step, activations++))) {
            return VMCU_ERROR_BAD_MODEL;
        }
        row += (uint32_t)p->inner[i];
    }
    return activations == step->num_inputs && vmcu_times(p->outer, (int32_t)row) == vmcu_output_bytes(model, step)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t concatenation_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_concatenation_params *p = (const vmcu_concatenation_params *)step->params;
    int32_t i;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->outer);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->num_operands);
    crc = vmcu_crc32_i32s(crc, p->inner, VMCU_MAX_STEP_INPUTS);
    for (i = 0; i < p->num_operands; ++i) {
        if (p->constants[i] != 0) {
            crc = vmcu_crc32(crc, p->constants[i], (uint32_t)p->outer * (uint32_t)p->inner[i]);
        }
    }
    return crc;
}

const vmcu_kernel vmcu_concatenation_s8_kernel = {
    .run = vmcu_concatenation_s8, .check = concatenation_check, .digest = concatenation_digest};
