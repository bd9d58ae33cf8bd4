/*
 * vmcu-tflite runtime: the hand-written kernels, one per step kind without a kernel description,
 * all with the vmcu_kernel_fn arguments: context, op params, input views (in operand order),
 * output view. CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and the fused chains of layers have
 * no C here: the converter generates one function per configuration from their descriptions
 * (vmcu_tflite/kernels/) into the model's C file.
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

/** What a kernel call knows besides its params (the vmcu_context of vmcu_types.h). */
struct vmcu_context {
    const vmcu_step *step; /**< mode, segment size, workspace offset */
    int8_t *pool;
    uint32_t pool_size;    /**< the plan's pool size: the modulus of every view */
    int8_t *scratch;       /**< the application's scratch: at least `step->scratch` bytes */
    int8_t *state;         /**< the application's state region (4-byte aligned), NULL without state */
    const vmcu_stream *stream; /**< the application's row callbacks (vmcu_pull_row()), NULL when the model streams nothing */
};

/**
 * @brief ADD, int8, with numpy broadcasting over up to VMCU_MAX_DIMS dimensions; either operand
 *        may be a constant (in the params); fused activation as act_min/act_max.
 *
 * Flat output segments of S bytes, in order; segment i reads elements [i * S, (i + 1) * S) of
 * an operand that has the output's shape.
 */
vmcu_status vmcu_add_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/** @brief MUL, int8: as vmcu_add_s8 (broadcasting, constants, flat output segments). */
vmcu_status vmcu_mul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/**
 * @brief AVERAGE_POOL_2D, int8: mean of each window's in-bounds taps (any filter, stride,
 *        padding). Iterations (n, y, x, channel segment), reading only the segment's channels.
 */
vmcu_status vmcu_avg_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/**
 * @brief MAX_POOL_2D, int8: maximum of each window's in-bounds taps. Iterations
 *        (n, y, x, channel segment), reading only the segment's channels.
 */
vmcu_status vmcu_max_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/**
 * @brief MEAN, int8, over any axes of a tensor of up to VMCU_MAX_DIMS dimensions (input and
 *        output quantization may differ).
 *
 * Output elements in order, `segment` at a time. Over H and W of [1, H, W, C] (the planner's
 * `channel_reduction` pattern) output segment q is computed from channel segment q of every
 * pixel before it is stored.
 */
vmcu_status vmcu_mean_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output);

/** @brief PAD, int8, up to VMCU_MAX_DIMS dimensions, pad value the output zero point (whole tensor). */
vmcu_status vmcu_pad_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/**
 * @brief SOFTMAX, int8 -> int8, over the last dimension: one row at a time (the segment is the
 *        row): maximum, sum of exps, then the whole row is stored. Returns VMCU_ERROR_UNSUPPORTED
 *        on a row whose sum of exps TFLite Micro cannot represent (it aborts there).
 */
vmcu_status vmcu_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/**
 * @brief CONCATENATION and PACK, int8, up to VMCU_MAX_STEP_INPUTS operands (constants included) along any
 *        axis: per outer row, the operands' rows in operand order, copied first byte first
 *        (the operands before a streamed one, then it and the rest).
 */
vmcu_status vmcu_concatenation_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output);

/** @brief CAST between int8, int16, int32 and uint32: each element modulo 2^bits of the output (whole tensor). */
vmcu_status vmcu_cast(const vmcu_context *ctx, const void *params, const vmcu_view *inputs, const vmcu_view *output);

/** @brief SignalWindow, int16: samples times repeating weights, shifted and saturated (whole tensor). */
vmcu_status vmcu_signal_window(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/** @brief SignalFftAutoScale, int16: one of its outputs, the shifted samples or the int32 shift (whole tensor). */
vmcu_status vmcu_signal_fft_auto_scale(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output);

/** @brief SignalRfft, int16: kissfft's fixed-point real FFT per row, in the scratch (whole tensor). */
vmcu_status vmcu_signal_rfft(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/** @brief SignalEnergy: uint32 energies of int16 (real, imag) pairs (whole tensor). */
vmcu_status vmcu_signal_energy(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/** @brief CONSTANT, int8: a folded model output, copied from its flash table into the output (no input). */
vmcu_status vmcu_constant_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/** @brief TFLite_Detection_PostProcess: box decoding and fast non-max suppression, one float32 output part. */
vmcu_status vmcu_detection_postprocess(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output);

/** @brief READ_VARIABLE, int8: a resource variable's bytes from the state region into the output. */
vmcu_status vmcu_read_variable_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output);

/** @brief ASSIGN_VARIABLE, int8: the value (input 0, or a constant) into a resource variable (no output). */
vmcu_status vmcu_assign_variable_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output);

/** @brief CALL_ONCE: the initialisation values into the resource variables, on the first run only (no output). */
vmcu_status vmcu_call_once(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/** @brief BATCH_MATMUL, int8, per-tensor zero points, broadcast batch dimensions (whole tensor). */
vmcu_status vmcu_batch_matmul_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                 const vmcu_view *output);

/** @brief BATCH_MATMUL in 16x8 (whole tensor): int16 operands, int64 sums, int16 output. */
vmcu_status vmcu_batch_matmul_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                  const vmcu_view *output);

/** @brief L2_NORMALIZATION, int8, over the last dimension: one row per segment (or the whole tensor). */
vmcu_status vmcu_l2_normalization_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                     const vmcu_view *output);

/** @brief LOG_SOFTMAX, int8, over the last dimension: one row per segment (or the whole tensor). */
vmcu_status vmcu_log_softmax_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output);

/** @brief SUB, int8, numpy broadcasting (ADD's arithmetic, the second input subtracted): flat segments. */
vmcu_status vmcu_sub_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output);

/** @brief MAXIMUM, int8 (raw values), numpy broadcasting: flat segments. */
vmcu_status vmcu_maximum_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/** @brief MINIMUM, int8 (raw values), numpy broadcasting: flat segments. */
vmcu_status vmcu_minimum_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/** @brief PRELU, int8, alpha broadcast against the input: flat segments. */
vmcu_status vmcu_prelu_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output);

/**
 * @brief ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC and TANH, int8: a 256-byte table indexed by the
 *        input byte, built by the converter from TFLite's arithmetic. Flat segments.
 */
vmcu_status vmcu_lookup_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/**
 * @brief SVDF, int8 (whole tensor): shifts its int16 state in the state region one step, adds the
 *        input's feature projection, filters the state in time; each input row is copied to the
 *        scratch first (`input_size` bytes).
 */
vmcu_status vmcu_svdf_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output);

/**
 * @brief The signal library's filter bank stages (an audio front end), whole tensor over 1-D channel
 *        arrays: SignalFilterBank (uint32 spectrum -> uint64 channels; scratch: the channels and the
 *        spectrum, aligned to 8), SignalFilterBankSquareRoot (uint64 -> uint32, shifted by an int32 scalar;
 *        VMCU_ERROR_ARITHMETIC for a shift outside 0..31), SignalFilterBankSpectralSubtraction (uint32,
 *        its noise estimate in the state region; scratch: input and output, aligned to 4), NOISE_ESTIMATE
 *        (that estimate copied out), SignalPCAN (uint32 energies and noise estimates -> uint32) and
 *        SignalFilterBankLog (uint32 -> int16).
 */
vmcu_status vmcu_signal_filter_bank(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output);
vmcu_status vmcu_signal_filter_bank_square_root(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                                const vmcu_view *output);
vmcu_status vmcu_signal_filter_bank_spectral_subtraction(const vmcu_context *ctx, const void *params,
                                                         const vmcu_view *inputs, const vmcu_view *output);
vmcu_status vmcu_signal_noise_estimate(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                       const vmcu_view *output);
vmcu_status vmcu_signal_pcan(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);
vmcu_status vmcu_signal_filter_bank_log(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                        const vmcu_view *output);

/**
 * @brief int32 ADD, MUL, DIV, MAXIMUM and MINIMUM (whole tensor) with numpy broadcasting: TFLite Micro's
 *        int32 reference ops; VMCU_ERROR_ARITHMETIC on a DIV by zero or of INT32_MIN by -1.
 */
vmcu_status vmcu_binary_s32(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/**
 * @brief int16 ADD, SUB and MUL (whole tensor) with numpy broadcasting: TFLite Micro's int16 kernels.
 */
vmcu_status vmcu_binary_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output);

/**
 * @brief int16 LOGISTIC and TANH (whole tensor): TFLite Micro's int16 kernels (a sigmoid table with
 *        linear interpolation).
 */
vmcu_status vmcu_sigmoid_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/**
 * @brief int16 SOFTMAX over the last axis (whole tensor): TFLite Micro's SoftmaxInt16 (exp and 1/(1+x)
 *        tables with linear interpolation).
 */
vmcu_status vmcu_softmax_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/**
 * @brief int16 RELU, RELU6 and LEAKY_RELU (whole tensor): TFLite Micro's int16 kernels.
 */
vmcu_status vmcu_unary_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/**
 * @brief int16 element-wise steps as one (LOGISTIC, TANH, RELU, RELU6, LEAKY_RELU, ADD, SUB, MUL over one
 *        shape): block by block, the members in order, their values in block buffers in the workspace;
 *        input element i read for the last time before output element i is written.
 */
vmcu_status vmcu_group_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/**
 * @brief int16 PRELU with a constant int8 alpha (whole tensor): TFLite Micro's BroadcastPrelu4DSlow.
 */
vmcu_status vmcu_prelu_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/**
 * @brief UNIDIRECTIONAL_SEQUENCE_LSTM, int8 with an int16 cell (whole tensor): TFLite Micro's integer
 *        LSTM over every time step, both states kept in the state region; scratch: input_size + units bytes.
 */
vmcu_status vmcu_lstm_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output);

/**
 * @brief UNIDIRECTIONAL_SEQUENCE_LSTM in 16x8 (whole tensor): TFLite Micro's LSTM with int16 activations,
 *        int64 gate sums and an int16 output state; scratch: 2 x (input_size + units) + 1 bytes.
 */
vmcu_status vmcu_lstm_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output);

/** @brief GATHER, int8, constant indices along one axis (whole tensor). */
vmcu_status vmcu_gather_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output);

/** @brief REDUCE_MAX, int8, over any dimensions (whole tensor). */
vmcu_status vmcu_reduce_max_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output);

/** @brief RESIZE_BILINEAR, int8, NHWC, TFLite's integer interpolation, tables precomputed (whole tensor). */
vmcu_status vmcu_resize_bilinear_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output);

/** @brief RESIZE_NEAREST_NEIGHBOR, int8, NHWC, source rows/columns precomputed (whole tensor). */
vmcu_status vmcu_resize_nearest_neighbor_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                            const vmcu_view *output);

/** @brief TRANSPOSE_CONV, int8, per-channel requantization, gathered per output pixel (whole tensor). */
vmcu_status vmcu_transpose_conv_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                   const vmcu_view *output);

/** @brief TRANSPOSE, STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK, TILE, int8, up to 5-D strided walks (whole tensor). */
vmcu_status vmcu_strided_copy_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                 const vmcu_view *output);

/** @brief QUANTIZE int8 -> int8 (requantization): flat segments. */
vmcu_status vmcu_quantize_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output);

/** @brief REQUANTIZE: int8 -> int16 or int32, int16 -> int8, int16 or int32, element by element (whole tensor). */
vmcu_status vmcu_requantize_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output);

/** @brief AVERAGE_POOL_2D, int16 (16x8 models): in-bounds taps' int32 sum / count, rounded half away (whole tensor). */
vmcu_status vmcu_avg_pool2d_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output);

/** @brief MAX_POOL_2D, int16 (16x8 models): the greatest in-bounds tap, clamped (whole tensor). */
vmcu_status vmcu_max_pool2d_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output);

/** @brief MEAN, int16 (16x8 models): int32 sums, one requantization, the int16 clamp (whole tensor). */
vmcu_status vmcu_mean_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                          const vmcu_view *output);

/** @brief PAD, int16 (16x8 models) with a pad value of two unequal bytes: int16 elements (whole tensor). */
vmcu_status vmcu_pad_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output);

/*
 * Each kernel above with its check and digest (vmcu_check.h), as the generated tables name it:
 * a step's `.kernel = &vmcu_<kernel>_kernel`.
 */
extern const vmcu_kernel vmcu_add_s8_kernel;
extern const vmcu_kernel vmcu_assign_variable_s8_kernel;
extern const vmcu_kernel vmcu_avg_pool2d_s8_kernel;
extern const vmcu_kernel vmcu_avg_pool2d_s16_kernel;
extern const vmcu_kernel vmcu_batch_matmul_s8_kernel;
extern const vmcu_kernel vmcu_batch_matmul_s16_kernel;
extern const vmcu_kernel vmcu_call_once_kernel;
extern const vmcu_kernel vmcu_cast_kernel;
extern const vmcu_kernel vmcu_concatenation_s8_kernel;
extern const vmcu_kernel vmcu_constant_s8_kernel;
extern const vmcu_kernel vmcu_detection_postprocess_kernel;
extern const vmcu_kernel vmcu_gather_s8_kernel;
extern const vmcu_kernel vmcu_l2_normalization_s8_kernel;
extern const vmcu_kernel vmcu_log_softmax_s8_kernel;
extern const vmcu_kernel vmcu_lookup_s8_kernel;
extern const vmcu_kernel vmcu_lstm_s8_kernel;
extern const vmcu_kernel vmcu_lstm_s16_kernel;
extern const vmcu_kernel vmcu_max_pool2d_s8_kernel;
extern const vmcu_kernel vmcu_max_pool2d_s16_kernel;
extern const vmcu_kernel vmcu_maximum_s8_kernel;
extern const vmcu_kernel vmcu_mean_s8_kernel;
extern const vmcu_kernel vmcu_mean_s16_kernel;
extern const vmcu_kernel vmcu_binary_s32_kernel;
extern const vmcu_kernel vmcu_binary_s16_kernel;
extern const vmcu_kernel vmcu_sigmoid_s16_kernel;
extern const vmcu_kernel vmcu_softmax_s16_kernel;
extern const vmcu_kernel vmcu_unary_s16_kernel;
extern const vmcu_kernel vmcu_group_s16_kernel;
extern const vmcu_kernel vmcu_prelu_s16_kernel;
extern const vmcu_kernel vmcu_minimum_s8_kernel;
extern const vmcu_kernel vmcu_mul_s8_kernel;
extern const vmcu_kernel vmcu_pad_s8_kernel;
extern const vmcu_kernel vmcu_pad_s16_kernel;
extern const vmcu_kernel vmcu_prelu_s8_kernel;
extern const vmcu_kernel vmcu_quantize_s8_kernel;
extern const vmcu_kernel vmcu_read_variable_s8_kernel;
extern const vmcu_kernel vmcu_requantize_s16_kernel;
extern const vmcu_kernel vmcu_reduce_max_s8_kernel;
extern const vmcu_kernel vmcu_resize_bilinear_s8_kernel;
extern const vmcu_kernel vmcu_resize_nearest_neighbor_s8_kernel;
extern const vmcu_kernel vmcu_signal_energy_kernel;
extern const vmcu_kernel vmcu_signal_fft_auto_scale_kernel;
extern const vmcu_kernel vmcu_signal_rfft_kernel;
extern const vmcu_kernel vmcu_signal_window_kernel;
extern const vmcu_kernel vmcu_softmax_s8_kernel;
extern const vmcu_kernel vmcu_strided_copy_s8_kernel;
extern const vmcu_kernel vmcu_sub_s8_kernel;
extern const vmcu_kernel vmcu_signal_filter_bank_kernel;
extern const vmcu_kernel vmcu_signal_filter_bank_log_kernel;
extern const vmcu_kernel vmcu_signal_filter_bank_spectral_subtraction_kernel;
extern const vmcu_kernel vmcu_signal_filter_bank_square_root_kernel;
extern const vmcu_kernel vmcu_signal_noise_estimate_kernel;
extern const vmcu_kernel vmcu_signal_pcan_kernel;
extern const vmcu_kernel vmcu_svdf_s8_kernel;
extern const vmcu_kernel vmcu_transpose_conv_s8_kernel;

#ifdef __cplusplus
}
#endif

#endif /* VMCU_KERNELS_H */
