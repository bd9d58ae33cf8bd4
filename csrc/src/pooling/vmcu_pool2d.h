/*
 * vmcu-tflite runtime, private: the check and the digest of vmcu_pool_params, shared by
 * AVERAGE_POOL_2D and MAX_POOL_2D (both walk their windows the same way).
 */
#ifndef VMCU_POOL2D_H
#define VMCU_POOL2D_H

#include "vmcu/vmcu_types.h"

/** Taps of a window at most: the average's int32 sums (|tap| <= 128, padding taps included) stay
 *  below 2^30. */
#define VMCU_POOL_MAX_TAPS (INT32_C(1) << 23)

vmcu_status vmcu_pool2d_check(const vmcu_model *model, const vmcu_step *step);

uint32_t vmcu_pool2d_digest(const vmcu_step *step, uint32_t crc);

#endif /* VMCU_POOL2D_H */
