/*
 * vmcu-tflite runtime, private: how MEAN and REDUCE_MAX walk a reduction. The leading dimensions
 * are split into kept ones (one output each, walked by the output index) and reduced ones
 * (walked for every output), each with its input stride.
 */
#ifndef VMCU_REDUCTION_H
#define VMCU_REDUCTION_H

#include "vmcu/vmcu_types.h"

typedef struct {
    int32_t kept_dims[VMCU_MAX_DIMS], kept_strides[VMCU_MAX_DIMS];
    int32_t red_dims[VMCU_MAX_DIMS], red_strides[VMCU_MAX_DIMS];
    int32_t kept, reduced;
    int32_t outer;     /**< product of the kept dimensions */
    int32_t positions; /**< product of the reduced dimensions */
} vmcu_reduction;

/** Split the first `count` of `rank` dimensions (row-major strides computed here). */
static inline void vmcu_reduction_split(vmcu_reduction *r, const int32_t *dims, const uint8_t *reduce, int32_t rank,
                                        int32_t count)
{
    int32_t stride[VMCU_MAX_DIMS];
    int32_t d;
    stride[rank - 1] = 1;
    for (d = rank - 1; d > 0; --d) {
        stride[d - 1] = stride[d] * dims[d];
    }
    r->kept = r->reduced = 0;
    r->outer = r->positions = 1;
    for (d = 0; d < count; ++d) {
        if (reduce[d]) {
            r->red_dims[r->reduced] = dims[d];
            r->red_strides[r->reduced++] = stride[d];
            r->positions *= dims[d];
        } else {
            r->kept_dims[r->kept] = dims[d];
            r->kept_strides[r->kept++] = stride[d];
            r->outer *= dims[d];
        }
    }
}

/** The input offset of kept position `o` (row-major over the kept dimensions). */
static inline uint32_t vmcu_reduction_base(const vmcu_reduction *r, int32_t o)
{
    uint32_t base = 0;
    int32_t k;
    for (k = r->kept - 1; k >= 0; --k) {
        base += (uint32_t)((o % r->kept_dims[k]) * r->kept_strides[k]);
        o /= r->kept_dims[k];
    }
    return base;
}

/** Advance `idx` (reduced multi-index) to the next reduced position; returns the offset change. */
static inline uint32_t vmcu_reduction_next(const vmcu_reduction *r, int32_t *idx)
{
    uint32_t delta = 0;
    int32_t k;
    for (k = r->reduced - 1; k >= 0; --k) {
        delta += (uint32_t)r->red_strides[k];
        if (++idx[k] < r->red_dims[k]) {
            break;
        }
        delta -= (uint32_t)(r->red_dims[k] * r->red_strides[k]);
        idx[k] = 0;
    }
    return delta;
}

#endif /* VMCU_REDUCTION_H */
