/*
 * vmcu-tflite runtime, private: how CONV_2D and FULLY_CONNECTED store an output row (a pixel's
 * channels, a row's units), value by value in order.
 *
 * Segment mode: values collect in ctx->scratch and each segment is stored once complete. Every
 * segment of a row reads the same input bytes (the pixel's window, the input row), so a kernel
 * may compute the next value (the other channel of a pair) before the current segment is
 * stored: it only reads bytes the next iteration reads anyway, which the plan keeps intact.
 * Whole-tensor mode: the output is apart from the inputs, so a row that does not wrap around
 * the end of the pool is written in place directly.
 */
#ifndef VMCU_ROW_WRITER_H
#define VMCU_ROW_WRITER_H

#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

typedef struct {
    const vmcu_view *output;
    int8_t *direct;  /* the row in the pool (whole-tensor mode, no wrap), or NULL */
    int8_t *scratch; /* ctx->scratch */
    uint32_t offset; /* output offset of the row */
    int32_t length, segment;
    int32_t stored, filled; /* values of the row stored; values waiting in scratch */
} vmcu_row_writer;

static inline void vmcu_row_begin(vmcu_row_writer *w, const vmcu_context *ctx, const vmcu_view *output,
                                  uint32_t offset, int32_t length)
{
    w->output = output;
    w->direct = ctx->step->mode == VMCU_MODE_WHOLE_TENSOR ? vmcu_span_out(output, offset, (uint32_t)length)
                                                          : (int8_t *)0;
    w->scratch = ctx->scratch;
    w->offset = offset;
    w->length = length;
    w->segment = (int32_t)ctx->step->segment;
    w->stored = 0;
    w->filled = 0;
}

static inline void vmcu_row_put(vmcu_row_writer *w, int8_t value)
{
    if (w->direct != 0) {
        w->direct[w->stored++] = value;
        return;
    }
    w->scratch[w->filled++] = value;
    if (w->filled == w->segment || w->stored + w->filled == w->length) {
        if (w->filled == 1) { /* one-byte segments: a byte, not two memmove */
            vmcu_put(w->output, w->offset + (uint32_t)w->stored, w->scratch[0]);
        } else {
            vmcu_write(w->output, w->offset + (uint32_t)w->stored, w->scratch, (uint32_t)w->filled);
        }
        w->stored += w->filled;
        w->filled = 0;
    }
}

#endif /* VMCU_ROW_WRITER_H */
