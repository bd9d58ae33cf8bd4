/*
 * vmcu-tflite runtime: the tables of a model against its own sizes and against what each step's
 * kernel will touch, before anything trusts them (vmcu.h says when each is checked).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"

#include "vmcu_tables.h"

/* A tensor of the table whose bytes lie in the pool: it starts inside and is no larger (it may
 * wrap around the end, as the circular pool allows). */
static int tensor_in_pool(const vmcu_model *model, uint16_t tensor)
{
    return tensor < model->num_tensors && model->tensors[tensor].offset < model->pool_bytes &&
           model->tensors[tensor].bytes <= model->pool_bytes;
}

/* Bytes of one element of each vmcu_type. */
static const uint8_t type_bytes[VMCU_TYPE_COUNT] = {1u, 2u, 4u, 4u, 8u, 4u, 1u, 2u, 8u};

/* Whole elements of a known type; a port of elements wider than a byte starts aligned to their size
 * (a tensor without bytes, which a kernel pulls or pushes, has no place to check). */
static int io_elements_ok(const vmcu_model *model, const vmcu_io *io)
{
    uint32_t size;
    if (io->type >= VMCU_TYPE_COUNT) {
        return 0;
    }
    size = type_bytes[io->type];
    return io->bytes % size == 0u && (model->tensors[io->tensor].bytes == 0u ||
                                     model->tensors[io->tensor].offset % size == 0u);
}

/* An input or output: the application reads and writes it as one run of bytes, of whole aligned elements. */
int vmcu_io_in_pool(const vmcu_model *model, const vmcu_io *io)
{
    return tensor_in_pool(model, io->tensor) && io->bytes <= model->tensors[io->tensor].bytes &&
           model->tensors[io->tensor].offset + io->bytes <= model->pool_bytes && io_elements_ok(model, io);
}

/* A streamed port (rows > 0): whole rows, a step that exists, and its tensor either holds it as one
 * run of pool bytes (pulled or pushed there) or, for a port a kernel pulls into its own ring or
 * pushes from it, has no bytes at all. */
static int streamed_io_ok(const vmcu_model *model, const vmcu_io *io)
{
    if (io->bytes % io->rows != 0 || io->step >= model->num_steps || !tensor_in_pool(model, io->tensor)) {
        return 0;
    }
    if (model->tensors[io->tensor].bytes == 0) {
        return 1;
    }
    return model->tensors[io->tensor].bytes == io->bytes && vmcu_io_in_pool(model, io);
}

static int io_ok(const vmcu_model *model, const vmcu_io *io)
{
    return (io->rows == 0 ? vmcu_io_in_pool(model, io) : streamed_io_ok(model, io)) && io_elements_ok(model, io);
}

/* A step writes its output in the pool, except the kernels that only write the state region: only
 * those may have none (so no other kernel's check ever meets VMCU_NO_OUTPUT). */
static int output_ok(const vmcu_model *model, const vmcu_step *step)
{
    if (step->output == VMCU_NO_OUTPUT) {
        return step->kernel == &vmcu_assign_variable_s8_kernel || step->kernel == &vmcu_call_once_kernel;
    }
    return tensor_in_pool(model, step->output);
}

static int step_in_pool(const vmcu_model *model, const vmcu_step *step)
{
    uint8_t i;
    if (step->kernel == 0 || step->kernel->run == 0 || step->kernel->check == 0 || step->kernel->digest == 0 ||
        step->params == 0 || step->kind >= VMCU_KIND_COUNT || step->mode > VMCU_MODE_IN_PLACE ||
        step->num_inputs > VMCU_MAX_STEP_INPUTS || !output_ok(model, step) ||
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
uint32_t vmcu_header_digest(const vmcu_model *model)
{
    const uint32_t fields[9] = {model->pool_bytes, model->scratch_bytes, model->num_tensors, model->num_steps,
                                model->num_inputs, model->num_outputs, model->state_bytes, model->state_tag,
                                model->num_state_init};
    return vmcu_crc32(0u, fields, (uint32_t)sizeof fields);
}

/* The model's own sizes: its counts match its header CRC (a count that lies about its own array
 * is caught before the array is read), its arrays are there, its initial state lies in the state. */
int vmcu_header_ok(const vmcu_model *model)
{
    uint16_t i;
    if (vmcu_header_digest(model) != model->header_crc || model->pool_bytes == 0 || model->tensors == 0 ||
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
vmcu_status vmcu_check_tables(const vmcu_model *model, uint16_t *failed_step)
{
    uint16_t i;
    if (!vmcu_header_ok(model)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0; i < model->num_inputs; ++i) {
        if (!io_ok(model, &model->inputs[i])) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (i = 0; i < model->num_outputs; ++i) {
        if (!io_ok(model, &model->outputs[i])) {
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

