/*
 * vmcu-tflite runtime: vmcu_verify_model(), the CRC-32 of every integer of a model's tables and
 * every constant, in the canonical order the converter computed it in (vmcu_check.h,
 * vmcu_tflite/codegen/integrity.py).
 */
#include <string.h>

#include "vmcu/vmcu.h"
#include "vmcu/vmcu_check.h"

#include "vmcu_tables.h"

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
        crc = vmcu_crc32_u32(crc, io[i].rows);
        crc = vmcu_crc32_u32(crc, io[i].step);
        crc = vmcu_crc32_u32(crc, io[i].type);
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
    if (vmcu_check_tables(model, &failed) != VMCU_OK) { /* the lengths the walk below reads are checked first */
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

