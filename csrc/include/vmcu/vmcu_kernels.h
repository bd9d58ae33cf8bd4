/*
 * vmcu-tflite runtime: the kernels, one per step kind, all with the same argument order:
 * context, op params, input views (in operand order), output view.
 *
 * Every kernel walks its output segment by segment in the order the planner assumed (see
 * vmcu_tflite/planner/access.py): it reads what the segment needs, computes the whole segment
 * into ctx->scratch, then stores it. In segment mode that store may land on input bytes the
 * kernel has already consumed; the plan guarantees it never lands on one still to be read.
 */
#ifndef VMCU_KERNELS_H
#define VMCU_KERNELS_H

#include "vmcu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a kernel call knows besides its params. */
typedef struct {
    const vmcu_step *step; /**< mode, segment size, workspace offset */
    int8_t *pool;
    uint32_t pool_size;    /**< the plan's pool size: the modulus of every view */
    int8_t *scratch;       /**< at least `step->segment` bytes (see vmcu_model.scratch_bytes) */
} vmcu_context;

typedef vmcu_status (*vmcu_kernel_fn)(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                      const vmcu_view *output);

/**
 * @brief CONV_2D, int8, per-channel requantization.
 * @param[in] inputs  [N, H, W, C_in]
 * @param[in] output  [N, H_out, W_out, C_out]; iterations (n, y, x, channel segment)
 */
vmcu_status vmcu_conv2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/** @brief DEPTHWISE_CONV_2D; in-place mode walks channel segments through the step's workspace. */
vmcu_status vmcu_depthwise_conv2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                     const vmcu_view *output);

/** @brief FULLY_CONNECTED: iterations (row, output segment). */
vmcu_status vmcu_fully_connected_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output);

/** @brief ADD with broadcasting: flat output segments. */
vmcu_status vmcu_add_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/** @brief MUL with broadcasting: flat output segments. */
vmcu_status vmcu_mul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/** @brief AVERAGE_POOL_2D: iterations (n, y, x, channel segment). */
vmcu_status vmcu_avg_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/** @brief MAX_POOL_2D: iterations (n, y, x, channel segment). */
vmcu_status vmcu_max_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/** @brief MEAN: over H and W, one channel segment at a time; other axes, output element order. */
vmcu_status vmcu_mean_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output);

/** @brief PAD (whole tensor). */
vmcu_status vmcu_pad_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/** @brief SOFTMAX over the last dimension: one row per segment. */
vmcu_status vmcu_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/** @brief CONCATENATION: per outer row, the operands before the streamed one, then the rest. */
vmcu_status vmcu_concatenation_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output);

/** @brief LOGISTIC: flat segments. */
vmcu_status vmcu_logistic_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/** @brief RESIZE_NEAREST_NEIGHBOR (whole tensor). */
vmcu_status vmcu_resize_nearest_neighbor_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                            const vmcu_view *output);

/** @brief TRANSPOSE (whole tensor). */
vmcu_status vmcu_transpose_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                              const vmcu_view *output);

/** @brief QUANTIZE int8 -> int8: flat segments. */
vmcu_status vmcu_quantize_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

#ifdef __cplusplus
}
#endif

#endif /* VMCU_KERNELS_H */
