/*
 * vmcu-tflite runtime: the public API.
 *
 *     static int8_t pool[MYMODEL_POOL_BYTES];
 *     int8_t *in = vmcu_input(&mymodel, pool, 0);    // write the input here (zero copy)
 *     if (vmcu_invoke(&mymodel, pool, sizeof pool) != VMCU_OK) { ... }
 *     const int8_t *out = vmcu_output(&mymodel, pool, 0);
 *
 * The application owns the pool; the runtime never allocates and refuses a pool smaller than
 * the plan. Inputs and outputs are pointers into the pool: write the input just before
 * vmcu_invoke() and read the output right after it, since the pool is reused for everything.
 */
#ifndef VMCU_H
#define VMCU_H

#include <stdint.h>

#include "vmcu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Run the model once over `pool`.
 * @param[in]     model      generated tables (const, in flash)
 * @param[in,out] pool       activation pool holding the input on entry and the output on return
 * @param[in]     pool_bytes size of `pool`; at least model->pool_bytes
 * @return VMCU_OK, VMCU_ERROR_POOL_TOO_SMALL, VMCU_ERROR_BAD_MODEL or VMCU_ERROR_UNSUPPORTED
 */
vmcu_status vmcu_invoke(const vmcu_model *model, int8_t *pool, uint32_t pool_bytes);

#ifdef VMCU_PROFILE
/**
 * Profiling builds (CMake -DVMCU_PROFILE=ON): vmcu_invoke() calls this, defined by the
 * application, before step `step` runs and once more with `step` = the step count after the
 * last one, so that the time between two calls is one kernel call.
 */
void vmcu_profile_step(uint16_t step);
#endif

/** @brief Where input `index` lives in `pool` (its bytes are contiguous); NULL if no such input. */
int8_t *vmcu_input(const vmcu_model *model, int8_t *pool, uint32_t index);

/** @brief Where output `index` lives in `pool` (contiguous); NULL if no such output. */
const int8_t *vmcu_output(const vmcu_model *model, const int8_t *pool, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* VMCU_H */
