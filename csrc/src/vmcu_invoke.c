/*
 * vmcu-tflite runtime: check the generated tables against the application's memory, then walk
 * the steps, one kernel call each.
 */
#include <string.h>

#include "vmcu/vmcu.h"
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static vmcu_view view_of(const vmcu_model *model, int8_t *pool, uint16_t tensor)
{
    vmcu_view v;
    v.pool = pool;
    v.size = model->pool_bytes;
    v.base = model->tensors[tensor].offset;
    return v;
}

/* A tensor of the table whose bytes lie in the pool: it starts inside and is no larger (it may
 * wrap around the end, as the circular pool allows). */
static int tensor_in_pool(const vmcu_model *model, uint16_t tensor)
{
    return tensor < model->num_tensors && model->tensors[tensor].offset < model->pool_bytes &&
           model->tensors[tensor].bytes <= model->pool_bytes;
}

/* An input or output: the application reads and writes it as one run of bytes. */
static int io_in_pool(const vmcu_model *model, const vmcu_io *io)
{
    return tensor_in_pool(model, io->tensor) && io->bytes <= model->tensors[io->tensor].bytes &&
           model->tensors[io->tensor].offset + io->bytes <= model->pool_bytes;
}

static int step_in_pool(const vmcu_model *model, const vmcu_step *step)
{
    uint8_t i;
    if (step->kernel == 0 || step->kernel->run == 0 || step->kernel->check == 0 || step->kernel->digest == 0 ||
        step->params == 0 || step->kind >= VMCU_KIND_COUNT || step->mode > VMCU_MODE_IN_PLACE ||
        step->num_inputs > VMCU_MAX_STEP_INPUTS || !tensor_in_pool(model, step->output) ||
        step->scratch > model->scratch_bytes || (step->workspace != 0 && step->workspace >= model->pool_bytes)) {
        return 0;
    }
    for (i = 0; i < step->num_inputs; ++i) {
        if (!tensor_in_pool(model, step->inputs[i])) {
            return 0;
        }
    }
    return 1;
}

/* The model struct's own integers (the counts of its arrays among them), in declaration order,
 * each as 4 bytes little-endian (the runtime's cores are): one CRC call, since every run pays it. */
static uint32_t header_digest(const vmcu_model *model)
{
    const uint32_t fields[9] = {model->pool_bytes, model->scratch_bytes, model->num_tensors, model->num_steps,
                                model->num_inputs, model->num_outputs, model->state_bytes, model->state_tag,
                                model->num_state_init};
    return vmcu_crc32(0u, fields, (uint32_t)sizeof fields);
}

/* The model's own sizes: its counts match its header CRC (a count that lies about its own array
 * is caught before the array is read), its arrays are there, its initial state lies in the state. */
static int header_ok(const vmcu_model *model)
{
    uint16_t i;
    if (header_digest(model) != model->header_crc || model->pool_bytes == 0 || model->tensors == 0 ||
        (model->num_steps > 0 && model->steps == 0) || (model->num_inputs > 0 && model->inputs == 0) ||
        (model->num_outputs > 0 && model->outputs == 0) || (model->num_state_init > 0 && model->state_init == 0) ||
        (model->state_bytes > 0 && model->state_bytes < 4)) {
        return 0;
    }
    for (i = 0; i < model->num_state_init; ++i) {
        const vmcu_state_init *init = &model->state_init[i];
        if (init->offset < 4 || init->offset > model->state_bytes || init->bytes > model->state_bytes - init->offset) {
            return 0;
        }
    }
    return 1;
}

/* Every table against the model's own sizes, then every step's params against what its kernel
 * will touch (its kernel's check), before anything runs. */
static vmcu_status check_tables(const vmcu_model *model, uint16_t *failed_step)
{
    uint16_t i;
    if (!header_ok(model)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < model->num_inputs; ++i) {
        if (!io_in_pool(model, &model->inputs[i])) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (i = 0; i < model->num_outputs; ++i) {
        if (!io_in_pool(model, &model->outputs[i])) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (i = 0; i < model->num_steps; ++i) {
        const vmcu_step *step = &model->steps[i];
        if (!step_in_pool(model, step) || step->kernel->check(model, step) != VMCU_OK) {
            *failed_step = i;
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    return VMCU_OK;
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

static uint32_t io_digest(uint32_t crc, const vmcu_io *io, uint16_t count)
{
    uint16_t i;
    for (i = 0; i < count; ++i) {
        uint32_t scale;
        memcpy(&scale, &io[i].scale, sizeof scale);
        crc = vmcu_crc32_u32(crc, io[i].tensor);
        crc = vmcu_crc32_u32(crc, scale);
        crc = vmcu_crc32_u32(crc, (uint32_t)io[i].zero_point);
        crc = vmcu_crc32_u32(crc, io[i].bytes);
    }
    return crc;
}

vmcu_status vmcu_verify_model(const vmcu_model *model)
{
    uint16_t i, failed;
    uint32_t crc;
    uint8_t k;
    if (model == 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (check_tables(model, &failed) != VMCU_OK) { /* the lengths the walk below reads are checked first */
        return VMCU_ERROR_BAD_MODEL;
    }
    crc = model->header_crc;
    for (i = 0; i < model->num_tensors; ++i) {
        crc = vmcu_crc32_u32(crc, model->tensors[i].offset);
        crc = vmcu_crc32_u32(crc, model->tensors[i].bytes);
    }
    for (i = 0; i < model->num_steps; ++i) {
        const vmcu_step *step = &model->steps[i];
        crc = vmcu_crc32_u32(crc, step->kind);
        crc = vmcu_crc32_u32(crc, step->mode);
        crc = vmcu_crc32_u32(crc, step->num_inputs);
        for (k = 0; k < VMCU_MAX_STEP_INPUTS; ++k) {
            crc = vmcu_crc32_u32(crc, step->inputs[k]);
        }
        crc = vmcu_crc32_u32(crc, step->output);
        crc = vmcu_crc32_u32(crc, step->segment);
        crc = vmcu_crc32_u32(crc, step->scratch);
        crc = vmcu_crc32_u32(crc, step->workspace);
    }
    crc = io_digest(crc, model->inputs, model->num_inputs);
    crc = io_digest(crc, model->outputs, model->num_outputs);
    for (i = 0; i < model->num_state_init; ++i) {
        crc = vmcu_crc32_u32(crc, model->state_init[i].offset);
        crc = vmcu_crc32_u32(crc, model->state_init[i].bytes);
        crc = vmcu_crc32_u32(crc, (uint32_t)(int32_t)model->state_init[i].fill);
    }
    for (i = 0; i < model->num_steps; ++i) {
        crc = model->steps[i].kernel->digest(&model->steps[i], crc);
    }
    return crc == model->crc ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static void reset_state(const vmcu_model *model, int8_t *state)
{
    uint16_t i;
    uint32_t b;
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
    if (!header_ok(model)) {
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
    uint16_t s, unused;
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
    status = check_tables(model, failed_step);
    if (status != VMCU_OK) {
        return status;
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
#ifdef VMCU_PROFILE
        vmcu_profile_step(s);
#endif
#ifdef VMCU_TRACE_ACCESS
        vmcu_trace_step(s, inputs, step->num_inputs, &output);
#endif
        status = step->kernel->run(&ctx, step->params, inputs, &output);
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
    if (model == 0 || pool == 0 || !header_ok(model) || index >= model->num_inputs ||
        !io_in_pool(model, &model->inputs[index])) {
        return (int8_t *)0;
    }
    return pool + model->tensors[model->inputs[index].tensor].offset;
}

const int8_t *vmcu_output(const vmcu_model *model, const int8_t *pool, uint32_t index)
{
    if (model == 0 || pool == 0 || !header_ok(model) || index >= model->num_outputs ||
        !io_in_pool(model, &model->outputs[index])) {
        return (const int8_t *)0;
    }
    return pool + model->tensors[model->outputs[index].tensor].offset;
}
