/*
 * vmcu-tflite runtime: walk the generated steps, one kernel call each.
 */
#include "vmcu/vmcu.h"
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

vmcu_status vmcu_invoke(const vmcu_model *model, int8_t *pool, uint32_t pool_bytes)
{
    uint16_t s;
    if (pool_bytes < model->pool_bytes) {
        return VMCU_ERROR_POOL_TOO_SMALL;
    }
    for (s = 0; s < model->num_steps; ++s) {
        const vmcu_step *step = &model->steps[s];
        vmcu_view inputs[VMCU_MAX_STEP_INPUTS];
        vmcu_view output;
        vmcu_context ctx;
        vmcu_status status;
        uint8_t i;
        if (step->kernel == 0 || step->kind >= VMCU_KIND_COUNT || step->num_inputs > VMCU_MAX_STEP_INPUTS ||
            step->output >= model->num_tensors || step->scratch > model->scratch_bytes) {
            return VMCU_ERROR_BAD_MODEL;
        }
        for (i = 0; i < step->num_inputs; ++i) {
            if (step->inputs[i] >= model->num_tensors) {
                return VMCU_ERROR_BAD_MODEL;
            }
            inputs[i] = view_of(model, pool, step->inputs[i]);
        }
        output = view_of(model, pool, step->output);
        ctx.step = step;
        ctx.pool = pool;
        ctx.pool_size = model->pool_bytes;
        ctx.scratch = model->scratch;
#ifdef VMCU_PROFILE
        vmcu_profile_step(s);
#endif
#ifdef VMCU_TRACE_ACCESS
        vmcu_trace_step(s, inputs, step->num_inputs, &output);
#endif
        status = step->kernel(&ctx, step->params, inputs, &output);
        if (status != VMCU_OK) {
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
    return index < model->num_inputs ? pool + model->tensors[model->inputs[index].tensor].offset : (int8_t *)0;
}

const int8_t *vmcu_output(const vmcu_model *model, const int8_t *pool, uint32_t index)
{
    return index < model->num_outputs ? pool + model->tensors[model->outputs[index].tensor].offset
                                      : (const int8_t *)0;
}
