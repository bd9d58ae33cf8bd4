/*
 * vmcu-tflite runtime, private: the int16 pools' (AVERAGE_POOL_2D and MAX_POOL_2D of a 16x8 model)
 * check and digest of vmcu_pool_params, and their window walk.
 */
#ifndef VMCU_POOL2D_S16_H
#define VMCU_POOL2D_S16_H

#include "vmcu/vmcu_types.h"

/** Taps of an int16 average's window at most: the int32 sum of |tap| <= 32768 and half the count stay
 *  within int32. */
#define VMCU_POOL_S16_MAX_TAPS INT32_C(65535)

vmcu_status vmcu_pool2d_s16_check(const vmcu_model *model, const vmcu_step *step);

uint32_t vmcu_pool2d_s16_digest(const vmcu_step *step, uint32_t crc);

/** The taps of output row `y` (or column) inside the input: filter rows [*lo, *hi) from origin y * stride - pad. */
static inline int32_t vmcu_pool_window(int32_t y, int32_t stride, int32_t pad, int32_t size, int32_t filter,
                                       int32_t *lo, int32_t *hi)
{
    const int32_t origin = y * stride - pad;
    *lo = origin < 0 ? -origin : 0;
    *hi = size - origin < filter ? size - origin : filter;
    return origin;
}

#endif /* VMCU_POOL2D_S16_H */
