/*
 * vmcu-tflite runtime: the rows of streamed inputs pulled from the application (vmcu_types.h,
 * vmcu_stream), wherever a kernel or the run wants them in the pool.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* Called once per input row, so kept to a few compares: no division unless `offset` is past the
 * pool (a plan never asks for that, but a wrong offset must still land inside the pool). */
vmcu_status vmcu_pull_row(const vmcu_context *ctx, const vmcu_view *view, uint32_t offset, uint32_t input,
                          uint32_t row, uint32_t bytes)
{
    uint32_t at;
    if (ctx->stream == 0 || ctx->stream->read_row == 0) {
        return VMCU_ERROR_BAD_ARGUMENT;
    }
    if (view->size == 0 || view->base >= view->size) {
        return VMCU_ERROR_BAD_MODEL;
    }
    at = offset < view->size ? offset : offset % view->size;
    at = at < view->size - view->base ? view->base + at : at - (view->size - view->base);
    if (bytes > view->size - at) {
        return VMCU_ERROR_BAD_MODEL;
    }
    VMCU_TRACE(view, offset, bytes, 1);
    return ctx->stream->read_row(ctx->stream->context, input, row, view->pool + at, bytes) == 0 ? VMCU_OK
                                                                                                 : VMCU_ERROR_STREAM;
}
