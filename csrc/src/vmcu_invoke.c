/*
 * vmcu-tflite runtime: check the generated tables against the application's memory, then walk
 * the steps, one kernel call each.
 */
#include "vmcu/vmcu.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_stream.h"
#include "vmcu_tables.h"

static vmcu_view view_of(const vmcu_model *model, int8_t *pool, uint16_t tensor)
{
    vmcu_view v;
    v.pool = pool;
    v.size = model->pool_bytes;
    v.base = tensor == VMCU_NO_OUTPUT ? 0u : model->tensors[tensor].offset; /* a state-only step's: unused */
    return v;
}

/* The state region: present, large enough and aligned for the int16/int32 state kernels read. */
static vmcu_status check_state(const vmcu_model *model, const vmcu_memory *memory)
{
    if (model->state_bytes == 0) {
        return VMCU_OK;
    }
    if (memory->state == 0 || memory->state_bytes < model->state_bytes || ((uintptr_t)memory->state & 3u) != 0) {
        return VMCU_ERROR_STATE_TOO_SMALL;
    }
    return VMCU_OK;
}

/* Every variable to its initial value. A region that does not hold this model's state yet is
 * zeroed whole first (its CALL_ONCE flags with it); one that does keeps its flags, as TFLite Micro's
 * Reset keeps CALL_ONCE done. */
static void reset_state(const vmcu_model *model, int8_t *state)
{
    uint16_t i;
    uint32_t b;
    if (*(const uint32_t *)(const void *)state != model->state_tag) {
        for (b = 0; b < model->state_bytes; ++b) {
            state[b] = 0;
        }
    }
    for (i = 0; i < model->num_state_init; ++i) {
        const vmcu_state_init *init = &model->state_init[i];
        for (b = 0; b < init->bytes; ++b) {
            state[init->offset + b] = init->fill;
        }
    }
    *(uint32_t *)(void *)state = model->state_tag;
}

vmcu_status vmcu_reset_state(const vmcu_model *model, const vmcu_memory *memory)
{
    vmcu_status status;
    if (model == 0 || memory == 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (!vmcu_header_ok(model)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    status = check_state(model, memory);
    if (status == VMCU_OK && model->state_bytes > 0) {
        reset_state(model, memory->state);
    }
    return status;
}

vmcu_status vmcu_invoke(const vmcu_model *model, const vmcu_memory *memory, uint16_t *failed_step)
{
    return vmcu_invoke_streamed(model, memory, (const vmcu_stream *)0, failed_step);
}

vmcu_status vmcu_invoke_streamed(const vmcu_model *model, const vmcu_memory *memory, const vmcu_stream *stream,
                                 uint16_t *failed_step)
{
    uint16_t s, unused;
    int32_t streamed;
    vmcu_status status;
    if (failed_step == 0) {
        failed_step = &unused;
    }
    *failed_step = model != 0 ? model->num_steps : 0;
    if (model == 0 || memory == 0 || memory->pool == 0 || (model->scratch_bytes > 0 && memory->scratch == 0)) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (memory->pool_bytes < model->pool_bytes) {
        return VMCU_ERROR_POOL_TOO_SMALL;
    }
    if (memory->scratch_bytes < model->scratch_bytes) {
        return VMCU_ERROR_SCRATCH_TOO_SMALL;
    }
    status = vmcu_check_tables(model, failed_step);
    if (status != VMCU_OK) {
        return status;
    }
    streamed = vmcu_stream_ready(model, stream);
    if (streamed < 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    status = check_state(model, memory);
    if (status != VMCU_OK) {
        return status;
    }
    if (model->state_bytes > 0 && *(const uint32_t *)(const void *)memory->state != model->state_tag) {
        reset_state(model, memory->state);
    }
    for (s = 0; s < model->num_steps; ++s) {
        const vmcu_step *step = &model->steps[s];
        vmcu_view inputs[VMCU_MAX_STEP_INPUTS];
        vmcu_view output;
        vmcu_context ctx;
        uint8_t i;
        for (i = 0; i < step->num_inputs; ++i) {
            inputs[i] = view_of(model, memory->pool, step->inputs[i]);
        }
        output = view_of(model, memory->pool, step->output);
        ctx.step = step;
        ctx.pool = memory->pool;
        ctx.pool_size = model->pool_bytes;
        ctx.scratch = memory->scratch;
        ctx.state = model->state_bytes > 0 ? memory->state : (int8_t *)0;
        ctx.stream = stream;
#ifdef VMCU_PROFILE
        vmcu_profile_step(s); /* the rows pulled before the step and pushed after it count as its time */
#endif
        status = streamed > 0 ? vmcu_pull_inputs(model, &ctx, s) : VMCU_OK;
#ifdef VMCU_TRACE_ACCESS
        vmcu_trace_step(s, inputs, step->num_inputs, &output);
#endif
        if (status == VMCU_OK) {
            status = step->kernel->run(&ctx, step->params, inputs, &output);
        }
        if (status == VMCU_OK && streamed > 0) {
            status = vmcu_push_outputs(model, memory->pool, stream, s);
        }
        if (status != VMCU_OK) {
            *failed_step = s;
            return status;
        }
    }
#ifdef VMCU_PROFILE
    vmcu_profile_step(model->num_steps);
#endif
    return VMCU_OK;
}

int8_t *vmcu_input(const vmcu_model *model, int8_t *pool, uint32_t index)
{
    if (model == 0 || pool == 0 || !vmcu_header_ok(model) || index >= model->num_inputs ||
        model->inputs[index].rows > 0 || !vmcu_io_in_pool(model, &model->inputs[index])) {
        return (int8_t *)0;
    }
    return pool + model->tensors[model->inputs[index].tensor].offset;
}

const int8_t *vmcu_output(const vmcu_model *model, const int8_t *pool, uint32_t index)
{
    if (model == 0 || pool == 0 || !vmcu_header_ok(model) || index >= model->num_outputs ||
        model->outputs[index].rows > 0 || !vmcu_io_in_pool(model, &model->outputs[index])) {
        return (const int8_t *)0;
    }
    return pool + model->tensors[model->outputs[index].tensor].offset;
}
