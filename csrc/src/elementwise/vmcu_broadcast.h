/*
 * vmcu-tflite runtime, private: the broadcasting walk shared by ADD, SUB, MUL, MAXIMUM, MINIMUM and
 * PRELU, and what their checks and digests share (vmcu_broadcast.c).
 *
 * The output is walked in flat order, `segment` bytes at a time (the planner's `elementwise`
 * pattern): each segment is computed into ctx->scratch, then stored. Inside a segment the walk
 * goes by runs along the innermost dimension, where each operand either advances one element
 * at a time (stride 1) or repeats one element (stride 0, broadcast); the kernel's `run` function
 * computes one such run from two plain pointers. An operand run that wraps around the end of
 * the pool is copied to a small buffer on the stack first.
 */
#ifndef VMCU_BROADCAST_H
#define VMCU_BROADCAST_H

#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/**
 * 1 when the step's walk stays inside its buffers (vmcu_check.h): the dimensions multiply to the
 * output's bytes; the strides, none negative and the innermost 0 or 1, reach exactly the elements
 * of each operand (an activation: the next input's bytes, in operand order; a constant: its
 * `size`); a segment of the output fits the scratch. The arithmetic is each kernel's to check.
 */
int vmcu_broadcast_walk_ok(const vmcu_model *model, const vmcu_step *step);

/**
 * The elements a walk of `rank` dimensions with these strides spans (its largest offset plus
 * one); 0 for a negative stride or a span past `limit` elements.
 */
uint32_t vmcu_walk_span(const int32_t *dims, const int32_t *strides, int32_t rank, uint32_t limit);

/** ADD's and SUB's check: the walk and the arithmetic of vmcu_binary_arith_ok. */
vmcu_status vmcu_add_sub_check(const vmcu_model *model, const vmcu_step *step);

/** vmcu_elementwise_params in declaration order (its constants, its arithmetic's tables too). */
uint32_t vmcu_elementwise_digest(const vmcu_step *step, uint32_t crc);

/** out[i] = f(a[i * a_step], b[i * b_step]) for i < len; steps are 0 or 1. */
typedef void (*vmcu_binary_run)(const vmcu_elementwise_params *p, const int8_t *a, int32_t a_step, const int8_t *b,
                                int32_t b_step, int8_t *out, int32_t len);

#define VMCU_BOUNCE_BYTES 32

static inline vmcu_status vmcu_broadcast_binary(const vmcu_context *ctx, const vmcu_elementwise_params *p,
                                                const vmcu_view *inputs, const vmcu_view *output,
                                                vmcu_binary_run run)
{
    const int8_t *constants[2];
    const int32_t *strides[2];
    const vmcu_view *views[2];
    int8_t bounce[2][VMCU_BOUNCE_BYTES];
    int8_t single[2];
    int32_t idx[VMCU_MAX_DIMS];
    uint32_t offset[2] = {0u, 0u};
    const int32_t segment = (int32_t)ctx->step->segment;
    const int32_t rank = p->rank, last = p->rank - 1;
    uint32_t total = 1u, done = 0u;
    int32_t d, k, activations = 0;
    if (segment < 1 || rank < 1 || rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    constants[0] = p->constant1;
    constants[1] = p->constant2;
    strides[0] = p->strides1;
    strides[1] = p->strides2;
    for (k = 0; k < 2; ++k) {
        views[k] = constants[k] == 0 ? &inputs[activations++] : (const vmcu_view *)0;
        if (strides[k][last] != 0 && strides[k][last] != 1) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (d = 0; d < rank; ++d) {
        if (p->dims[d] < 1) {
            return VMCU_ERROR_BAD_MODEL;
        }
        total *= (uint32_t)p->dims[d];
        idx[d] = 0;
    }
    while (done < total) {
        const int32_t chunk = total - done < (uint32_t)segment ? (int32_t)(total - done) : segment;
        int32_t filled = 0;
        while (filled < chunk) {
            const int8_t *operand[2];
            int32_t len = chunk - filled;
            if (len > p->dims[last] - idx[last]) {
                len = p->dims[last] - idx[last];
            }
            for (k = 0; k < 2; ++k) {
                const int32_t step = strides[k][last];
                if (constants[k] != 0) {
                    operand[k] = constants[k] + offset[k];
                } else if (step == 0) {
                    single[k] = vmcu_get(views[k], offset[k]);
                    operand[k] = &single[k];
                } else {
                    operand[k] = vmcu_span(views[k], offset[k], (uint32_t)len);
                    if (operand[k] == 0) { /* wraps around the end of the pool */
                        if (len > VMCU_BOUNCE_BYTES) {
                            len = VMCU_BOUNCE_BYTES;
                        }
                        vmcu_read(views[k], offset[k], bounce[k], (uint32_t)len);
                        operand[k] = bounce[k];
                    }
                }
            }
            run(p, operand[0], strides[0][last], operand[1], strides[1][last], ctx->scratch + filled, len);
            filled += len;
            /* advance the multi-index by len (never past the end of the innermost dimension) */
            idx[last] += len;
            for (k = 0; k < 2; ++k) {
                offset[k] += (uint32_t)(len * strides[k][last]);
            }
            for (d = last; d > 0 && idx[d] == p->dims[d]; --d) {
                idx[d] = 0;
                ++idx[d - 1];
                for (k = 0; k < 2; ++k) {
                    offset[k] = offset[k] - (uint32_t)(p->dims[d] * strides[k][d]) + (uint32_t)strides[k][d - 1];
                }
            }
        }
        vmcu_write(output, done, ctx->scratch, (uint32_t)chunk);
        done += (uint32_t)chunk;
    }
    return VMCU_OK;
}

#endif /* VMCU_BROADCAST_H */
