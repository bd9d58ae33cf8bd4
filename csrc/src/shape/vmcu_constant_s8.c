/*
 * CONSTANT, int8: a model output the converter computed from constants (a detector's anchors),
 * copied from its flash table into the output's place in the pool at every run, as TFLite Micro
 * recomputes it at every run. The table is never the pool, so one memcpy-style write.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_constant_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_constant_params *p = (const vmcu_constant_params *)params;
    (void)ctx;
    (void)inputs;
    if (p->bytes < 1 || p->data == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    vmcu_write_buffer(output, 0u, p->data, (uint32_t)p->bytes);
    return VMCU_OK;
}

/* No input; a table that fills the output to the byte (the digest reads that many bytes of it). */
static vmcu_status constant_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_constant_params *p = (const vmcu_constant_params *)step->params;
    return step->num_inputs == 0u && p->data != 0 && p->bytes >= 1 &&
                   (uint32_t)p->bytes == vmcu_output_bytes(model, step)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t constant_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_constant_params *p = (const vmcu_constant_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->bytes);
    return p->data != 0 && p->bytes > 0 ? vmcu_crc32(crc, p->data, (uint32_t)p->bytes) : crc;
}

const vmcu_kernel vmcu_constant_s8_kernel = {
    .run = vmcu_constant_s8, .check = constant_check, .digest = constant_digest};
