/*
 * vmcu-tflite runtime: the rows of streamed inputs pulled from the application (vmcu_types.h,
 * vmcu_stream), wherever a kernel or the run wants them in the pool, and the rows of streamed
 * outputs pushed to it. Apart from vmcu_invoke.c so that the run's loop, which calls these, keeps
 * the stack frame it had without them (the stack high-water mark is a kernel call's).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_stream.h"

/* Where a row at view byte `offset` lies in the pool (*at), or 0 where it would cross the end of
 * the view. Called once per row, so kept to a few compares: no division unless `offset` is past
 * the view (a plan never asks for that, but a wrong offset must still land inside the pool). */
static int row_at(const vmcu_view *view, uint32_t offset, uint32_t bytes, uint32_t *at)
{
    uint32_t a;
    if (view->size == 0 || view->base >= view->size) {
        return 0;
    }
    a = offset < view->size ? offset : offset % view->size;
    a = a < view->size - view->base ? view->base + a : a - (view->size - view->base);
    *at = a;
    return bytes <= view->size - a;
}

vmcu_status vmcu_pull_row(const vmcu_context *ctx, const vmcu_view *view, uint32_t offset, uint32_t input,
                          uint32_t row, uint32_t bytes)
{
    uint32_t at;
    if (ctx->stream == 0 || ctx->stream->read_row == 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (!row_at(view, offset, bytes, &at)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    VMCU_TRACE(view, offset, bytes, 1);
    return ctx->stream->read_row(ctx->stream->context, input, row, view->pool + at, bytes) == 0 ? VMCU_OK
                                                                                                 : VMCU_ERROR_STREAM;
}

vmcu_status vmcu_push_row(const vmcu_context *ctx, const vmcu_view *view, uint32_t offset, uint32_t output,
                          uint32_t row, uint32_t bytes)
{
    uint32_t at;
    if (ctx->stream == 0 || ctx->stream->write_row == 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (!row_at(view, offset, bytes, &at)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    VMCU_TRACE(view, offset, bytes, 0);
    return ctx->stream->write_row(ctx->stream->context, output, row, view->pool + at, bytes) == 0 ? VMCU_OK
                                                                                                   : VMCU_ERROR_STREAM;
}

/* Every streamed port has the callback it needs: checked before anything runs. */
int32_t vmcu_stream_ready(const vmcu_model *model, const vmcu_stream *stream)
{
    int32_t ports = 0;
    uint16_t i;
    for (i = 0; i < model->num_inputs; ++i) {
        if (model->inputs[i].rows > 0) {
            if (stream == 0 || stream->read_row == 0) {
                return -1;
            }
            ++ports;
        }
    }
    for (i = 0; i < model->num_outputs; ++i) {
        if (model->outputs[i].rows > 0) {
            if (stream == 0 || stream->write_row == 0) {
                return -1;
            }
            ++ports;
        }
    }
    return ports;
}

/* The streamed inputs whose tensor step `s` reads whole: every row pulled into it, in order (an
 * input with a tensor of 0 bytes is pulled by the step's kernel instead). */
vmcu_status vmcu_pull_inputs(const vmcu_model *model, const vmcu_context *ctx, uint16_t s)
{
    uint16_t i;
    for (i = 0; i < model->num_inputs; ++i) {
        const vmcu_io *io = &model->inputs[i];
        if (io->rows > 0 && io->step == s && model->tensors[io->tensor].bytes > 0) {
            const vmcu_view view = {ctx->pool, model->pool_bytes, model->tensors[io->tensor].offset};
            const uint32_t row_bytes = io->bytes / io->rows;
            uint32_t r;
            for (r = 0; r < io->rows; ++r) {
                const vmcu_status status = vmcu_pull_row(ctx, &view, r * row_bytes, i, r, row_bytes);
                if (status != VMCU_OK) {
                    return status;
                }
            }
        }
    }
    return VMCU_OK;
}

/* The streamed outputs step `s` made in the pool: every row handed to the application, in order
 * (the checks found each such output's tensor one run of pool bytes; an output whose tensor has
 * 0 bytes was pushed by the step's own kernel, row by row from its ring). */
vmcu_status vmcu_push_outputs(const vmcu_model *model, const int8_t *pool, const vmcu_stream *stream, uint16_t s)
{
    uint16_t o;
    for (o = 0; o < model->num_outputs; ++o) {
        const vmcu_io *io = &model->outputs[o];
        if (io->rows > 0 && io->step == s && model->tensors[io->tensor].bytes > 0) {
            const int8_t *src = pool + model->tensors[io->tensor].offset;
            const uint32_t row_bytes = io->bytes / io->rows;
            uint32_t r;
            for (r = 0; r < io->rows; ++r) {
                if (stream->write_row(stream->context, o, r, src + r * row_bytes, row_bytes) != 0) {
                    return VMCU_ERROR_STREAM;
                }
            }
        }
    }
    return VMCU_OK;
}
