/*
 * Resource variables: READ_VARIABLE and ASSIGN_VARIABLE copy a variable's bytes between the state
 * region and the pool where the model's operator order has them (a READ before an ASSIGN of the
 * same run gets the previous run's bytes, its own copy in the pool); CALL_ONCE copies the values
 * of the model's initialisation subgraph, evaluated when converting, into the variables on the
 * first run only (a flag word in the region remembers it ran; vmcu_reset_state() leaves it set, as
 * TFLite Micro's Reset leaves CALL_ONCE done).
 */
#include <string.h>

#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_read_variable_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output)
{
    const vmcu_variable_params *p = (const vmcu_variable_params *)params;
    (void)inputs;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    vmcu_write_buffer(output, 0u, ctx->state + p->state_offset, p->bytes);
    return VMCU_OK;
}

vmcu_status vmcu_assign_variable_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output)
{
    const vmcu_variable_params *p = (const vmcu_variable_params *)params;
    (void)output;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    if (p->constant != 0) {
        memcpy(ctx->state + p->state_offset, p->constant, p->bytes);
    } else {
        vmcu_read(&inputs[0], 0u, ctx->state + p->state_offset, p->bytes);
    }
    return VMCU_OK;
}

vmcu_status vmcu_call_once(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_call_once_params *p = (const vmcu_call_once_params *)params;
    uint32_t *flag;
    uint32_t at = 0u;
    int32_t i;
    (void)inputs;
    (void)output;
    if (ctx->state == 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    flag = (uint32_t *)(void *)(ctx->state + p->flag_offset);
    if (*flag != 0u) {
        return VMCU_OK;
    }
    for (i = 0; i < p->num_values; ++i) {
        memcpy(ctx->state + p->offsets[i], p->data + at, p->sizes[i]);
        at += p->sizes[i];
    }
    *flag = 1u;
    return VMCU_OK;
}

/* The variable is one entry of the state region; READ writes all of its (pool) output, ASSIGN
 * reads all of its one input or has the value as a constant; neither calls another struct. */
static vmcu_status read_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_variable_params *p = (const vmcu_variable_params *)step->params;
    return step->num_inputs == 0u && step->output != VMCU_NO_OUTPUT && p->constant == 0 &&
                   vmcu_state_holds(model, p->state_offset, p->bytes, 1u) && p->bytes == vmcu_output_bytes(model, step)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static vmcu_status assign_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_variable_params *p = (const vmcu_variable_params *)step->params;
    const int value_ok = p->constant != 0 ? step->num_inputs == 0u
                                          : step->num_inputs == 1u && vmcu_input_bytes(model, step, 0u) == p->bytes;
    return step->output == VMCU_NO_OUTPUT && value_ok && vmcu_state_holds(model, p->state_offset, p->bytes, 1u)
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t variable_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_variable_params *p = (const vmcu_variable_params *)step->params;
    crc = vmcu_crc32_u32(crc, p->state_offset);
    crc = vmcu_crc32_u32(crc, p->bytes);
    return p->constant != 0 ? vmcu_crc32(crc, p->constant, p->bytes) : crc;
}

/* The flag: a word of the region after the tag, in no variable; each value exactly one variable
 * (at most one value per variable, so their sizes add up to at most the region). */
static vmcu_status call_once_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_call_once_params *p = (const vmcu_call_once_params *)step->params;
    uint16_t v;
    int32_t i;
    if (step->num_inputs != 0u || step->output != VMCU_NO_OUTPUT || (p->flag_offset & 3u) != 0u ||
        p->flag_offset < 4u || p->flag_offset > model->state_bytes - 4u || model->state_bytes < 8u ||
        p->num_values < 0 || p->num_values > (int32_t)model->num_state_init ||
        (p->num_values > 0 && (p->offsets == 0 || p->sizes == 0 || p->data == 0))) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (v = 0; v < model->num_state_init; ++v) {
        const vmcu_state_init *init = &model->state_init[v];
        if (p->flag_offset < init->offset + init->bytes && init->offset < p->flag_offset + 4u) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (i = 0; i < p->num_values; ++i) {
        if (!vmcu_state_holds(model, p->offsets[i], p->sizes[i], 1u)) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    return VMCU_OK;
}

static uint32_t call_once_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_call_once_params *p = (const vmcu_call_once_params *)step->params;
    uint32_t total = 0u;
    int32_t i;
    crc = vmcu_crc32_u32(crc, p->flag_offset);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->num_values);
    if (p->num_values <= 0 || p->offsets == 0 || p->sizes == 0 || p->data == 0) {
        return crc;
    }
    for (i = 0; i < p->num_values; ++i) {
        crc = vmcu_crc32_u32(crc, p->offsets[i]);
    }
    for (i = 0; i < p->num_values; ++i) {
        crc = vmcu_crc32_u32(crc, p->sizes[i]);
        total += p->sizes[i];
    }
    return vmcu_crc32(crc, p->data, total);
}

const vmcu_kernel vmcu_read_variable_s8_kernel = {.run = vmcu_read_variable_s8, .check = read_check,
                                                  .digest = variable_digest};
const vmcu_kernel vmcu_assign_variable_s8_kernel = {.run = vmcu_assign_variable_s8, .check = assign_check,
                                                    .digest = variable_digest};
const vmcu_kernel vmcu_call_once_kernel = {.run = vmcu_call_once, .check = call_once_check,
                                           .digest = call_once_digest};
