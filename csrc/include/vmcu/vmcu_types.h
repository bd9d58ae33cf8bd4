/*
 * vmcu-tflite runtime: the tables a generated model consists of.
 *
 * The converter writes every table as `const` data (flash). Nothing here allocates: the
 * application owns the activation pool and the scratch, and passes them to vmcu_invoke().
 */
#ifndef VMCU_TYPES_H
#define VMCU_TYPES_H

#include <stdint.h>

#include "vmcu_kinds.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes returned by every runtime function. */
typedef enum {
    VMCU_OK = 0,
    VMCU_ERROR_POOL_TOO_SMALL = 1,    /**< the pool given is smaller than the plan's pool_bytes */
    VMCU_ERROR_BAD_MODEL = 2,         /**< a table refers to something that does not exist or leaves the pool */
    VMCU_ERROR_UNSUPPORTED = 3,       /**< a step kind or mode this build does not implement */
    VMCU_ERROR_BAD_ARGUMENT = 4,      /**< a NULL model, memory or pool, or no scratch where the model needs one */
    VMCU_ERROR_SCRATCH_TOO_SMALL = 5, /**< the scratch given is smaller than the model's scratch_bytes */
    VMCU_ERROR_STATE_TOO_SMALL = 6,   /**< no state region, or smaller than state_bytes, or not 4-byte aligned */
    VMCU_ERROR_STREAM = 7,            /**< a stream callback returned non-zero: the run stopped at the step that was
                                           waiting (failed_step) */
    VMCU_ERROR_ARITHMETIC = 8         /**< the data asked a kernel for arithmetic TFLite Micro refuses or leaves
                                           undefined (an int32 DIV by zero, a square root's shift outside
                                           0..31): the run stopped at that step (failed_step) */
} vmcu_status;

/**
 * The element type of a pool tensor the application reads or writes (vmcu_io.type): int8 for a
 * quantized model, other types for models that compute in them (an audio front end's int16
 * samples). Elements are little-endian; a tensor of elements wider than a byte starts at a pool
 * offset that is a multiple of their size and never crosses the end of the pool, so an application
 * whose pool is aligned to 8 bytes may read it through a pointer of its type.
 */
typedef enum {
    VMCU_TYPE_INT8 = 0,
    VMCU_TYPE_INT16 = 1,
    VMCU_TYPE_INT32 = 2,
    VMCU_TYPE_UINT32 = 3,
    VMCU_TYPE_UINT64 = 4,
    VMCU_TYPE_FLOAT32 = 5,
    VMCU_TYPE_UINT8 = 6,
    VMCU_TYPE_UINT16 = 7,
    VMCU_TYPE_INT64 = 8,
    VMCU_TYPE_COUNT = 9
} vmcu_type;

/** How a step moves its bytes (see the planner): the kernel's loop order is the same in every mode. */
typedef enum {
    VMCU_MODE_WHOLE_TENSOR = 0, /**< output apart from the inputs */
    VMCU_MODE_SEGMENT = 1,      /**< output segments written over input segments already consumed */
    VMCU_MODE_IN_PLACE = 2      /**< depthwise: channel planes through the step's workspace */
} vmcu_mode;

/** A window into the circular pool: byte i of the tensor lives at pool[(base + i) % size]. */
typedef struct {
    int8_t *pool;
    uint32_t size; /**< pool bytes */
    uint32_t base; /**< < size */
} vmcu_view;

/** An activation buffer: where it starts in the pool and how many bytes it has. */
typedef struct {
    uint32_t offset;
    uint32_t bytes;
} vmcu_tensor;

/** Up to 4-D shapes, NHWC; unused leading dimensions are 1. */
typedef struct {
    int32_t n, h, w, c;
} vmcu_dims;

#define VMCU_MAX_STEP_INPUTS 10
/** A step's output index when it writes nothing in the pool (ASSIGN_VARIABLE, CALL_ONCE: only the state). */
#define VMCU_NO_OUTPUT 0xFFFFu

/** What a kernel call knows besides its params (defined in vmcu_kernels.h). */
typedef struct vmcu_context vmcu_context;

typedef struct vmcu_model vmcu_model;
typedef struct vmcu_step vmcu_step;

/**
 * A kernel: the runtime's hand-written ones (vmcu_kernels.h) and the ones the converter generates
 * per kernel configuration into the model's C file all take these arguments: context, op params,
 * input views (in operand order), output view.
 */
typedef vmcu_status (*vmcu_kernel_fn)(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                      const vmcu_view *output);

/**
 * A step's tables against everything its kernel will touch (vmcu_check.h): VMCU_OK, or
 * VMCU_ERROR_BAD_MODEL when the kernel would leave a tensor, the scratch, the workspace or the
 * state, or meet a value its arithmetic does not take. Called only after the step's tensor
 * indices, scratch and workspace were found inside the model's buffers.
 */
typedef vmcu_status (*vmcu_check_fn)(const vmcu_model *model, const vmcu_step *step);

/** The step's params (every integer, then the constants they point to) folded into a CRC-32, in
 *  the canonical order the converter computed it in (vmcu_check.h). Called only on checked steps. */
typedef uint32_t (*vmcu_digest_fn)(const vmcu_step *step, uint32_t crc);

/**
 * What a step calls, with the two functions that know its params struct: the kernel pointer, not
 * the step's kind, decides how the params are read, so no integer of a table can make a params
 * struct be read as another.
 */
typedef struct {
    vmcu_kernel_fn run;
    vmcu_check_fn check;
    vmcu_digest_fn digest;
} vmcu_kernel;

/** One kernel call. `params` points to the params struct its kernel reads. */
struct vmcu_step {
    uint8_t kind;                         /**< vmcu_kind (what the step computes; the call goes to `kernel`) */
    uint8_t mode;                         /**< vmcu_mode */
    uint8_t num_inputs;                   /**< activation inputs */
    uint16_t inputs[VMCU_MAX_STEP_INPUTS]; /**< tensor indices, in the op's operand order */
    uint16_t output;                      /**< tensor index, or VMCU_NO_OUTPUT (state-only steps) */
    uint32_t segment;                     /**< bytes (channels) per output segment */
    uint32_t scratch;                     /**< bytes of the model's scratch the kernel uses (generated ones: 0) */
    uint32_t workspace;                   /**< pool offset of the step's workspace (in-place mode, fused rings) */
    const vmcu_kernel *kernel;
    const void *params;
};

/** Per-channel requantization of conv, depthwise and fully connected outputs. A layer whose
 *  generated kernel takes the narrow form holds its instructions' operands instead (2m - 2^32 and
 *  r - 1 for a right shift r, vmcu_requantize_narrow; vmcu_tflite/kernels/requant.py). */
typedef struct {
    const int32_t *multiplier; /**< [C_out] Q31 (narrow form: 2m - 2^32) */
    const int8_t *shift;       /**< [C_out] power-of-two exponent (negative: right shift), in [-31, 31] (narrow: r - 1) */
    int32_t act_min;
    int32_t act_max;
} vmcu_requant;

/*
 * CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED run kernels generated per configuration, with
 * every shape, stride and padding folded into their C: their params hold only the constants
 * those kernels read.
 */

/** CONV_2D: filter [C_out][K_h * K_w * C_in / groups], rows padded as the generated kernel reads them. */
typedef struct {
    int32_t input_offset, output_offset;
    const void *filter; /**< int8_t, or int16_t (word-aligned) where the generated kernel reads it widened */
    const void *bias; /**< [C_out] int16_t or int32_t: the type the model's generated kernel reads */
    vmcu_requant requant;
} vmcu_conv_params;

/** DEPTHWISE_CONV_2D: filter [1, K_h, K_w, C_out], C_out = C_in * depth_multiplier. */
typedef struct {
    int32_t input_offset, output_offset;
    const void *filter; /**< int8_t, or int16_t lane-ordered (word-aligned) where the generated kernel reads it so */
    const void *bias; /**< [C_out] int16_t or int32_t: the type the model's generated kernel reads */
    vmcu_requant requant;
} vmcu_depthwise_params;

/** FULLY_CONNECTED: rows x [K] times filter [N, K]. */
typedef struct {
    int32_t input_offset, output_offset;
    const int8_t *filter;
    const void *bias; /**< [C_out] int16_t or int32_t: the type the model's generated kernel reads */
    vmcu_requant requant;
} vmcu_fully_connected_params;

/** TRANSPOSE_CONV (a runtime kernel, not generated): filter [C_out][K_h][K_w][C_in]. */
typedef struct {
    vmcu_dims input, output;
    int32_t filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    int32_t filter_length; /**< elements of `filter`: the check holds C_out x K_h x K_w x C_in to it */
    int32_t input_offset, output_offset;
    const int8_t *filter;
    const int32_t *bias; /**< [C_out] */
    vmcu_requant requant;
} vmcu_transpose_conv_params;

/** Most dimensions of the shapes ADD, MUL, MEAN and PAD walk (TFLite Micro's RuntimeShape holds 6). */
#define VMCU_MAX_DIMS 6

/** The integer arithmetic of ADD and MUL: operand offsets, scaling and the activation clamp. */
typedef struct {
    int32_t input1_offset, input2_offset, output_offset;
    int32_t left_shift; /**< ADD: 20 */
    int32_t input1_multiplier, input1_shift, input2_multiplier, input2_shift; /**< ADD only */
    int32_t output_multiplier, output_shift;
    int32_t act_min, act_max;
    /** ADD: each input's scaled value (before the sum) for every int8 value, indexed by value + 128,
     *  or NULL (then computed per element). */
    const int32_t *input1_scaled, *input2_scaled;
} vmcu_binary_arith;

/**
 * ADD, SUB, MUL, MAXIMUM, MINIMUM and PRELU, element-wise with numpy broadcasting over up to
 * VMCU_MAX_DIMS dimensions (MAXIMUM and MINIMUM use no arithmetic; PRELU's is described in
 * vmcu_prelu_s8.c).
 *
 * The converter merges dimensions that both operands walk the same way, so most models end up
 * with one dimension (same shapes) or two (a per-channel operand broadcast over pixels).
 */
typedef struct {
    int32_t rank;                        /**< dimensions used, 1 to VMCU_MAX_DIMS */
    int32_t dims[VMCU_MAX_DIMS];         /**< output shape, outermost first */
    int32_t strides1[VMCU_MAX_DIMS];     /**< operand 1 element stride per output dimension (0: broadcast) */
    int32_t strides2[VMCU_MAX_DIMS];     /**< operand 2 element stride per output dimension (0: broadcast) */
    const int8_t *constant1, *constant2; /**< constant operands, or NULL for an activation */
    int32_t constant1_size, constant2_size; /**< elements of each constant operand (0 for an activation) */
    vmcu_binary_arith arith;
} vmcu_elementwise_params;

/**
 * int32 ADD, MUL, DIV, MAXIMUM and MINIMUM (the audio front end's integer arithmetic), whole tensor:
 * `operation` 0..4 in that order, the result clamped to [act_min, act_max], with numpy broadcasting
 * over up to VMCU_MAX_DIMS dimensions walked as vmcu_elementwise_params walks them (in elements).
 */
typedef struct {
    int32_t operation;
    int32_t act_min, act_max;
    int32_t rank;
    int32_t dims[VMCU_MAX_DIMS];
    int32_t strides1[VMCU_MAX_DIMS];
    int32_t strides2[VMCU_MAX_DIMS];
    const int32_t *constant1, *constant2; /**< constant operands, or NULL for an activation */
    int32_t constant1_size, constant2_size;
} vmcu_binary_s32_params;

/**
 * int16 ADD, SUB and MUL (16x8 models), whole tensor: `operation` 0..2 in that order, the arithmetic
 * of vmcu_binary_arith (ADD/SUB: left_shift 15; MUL: the output multiplier only; no tables), with
 * numpy broadcasting over up to VMCU_MAX_DIMS dimensions walked as vmcu_elementwise_params walks them
 * (in elements).
 */
typedef struct {
    int32_t operation;
    int32_t rank;
    int32_t dims[VMCU_MAX_DIMS];
    int32_t strides1[VMCU_MAX_DIMS];
    int32_t strides2[VMCU_MAX_DIMS];
    const int16_t *constant1, *constant2; /**< constant operands, or NULL for an activation */
    int32_t constant1_size, constant2_size; /**< elements of each constant operand (0 for an activation) */
    vmcu_binary_arith arith;
} vmcu_binary_s16_params;

/**
 * int16 LOGISTIC and TANH (16x8 models), whole tensor: `operation` 0 (LOGISTIC) or 1 (TANH); each input
 * (x * input_multiplier + rounding) >> input_left_shift, then the sigmoid table read with linear
 * interpolation (see vmcu_sigmoid_s16.c).
 */
typedef struct {
    int32_t operation;
    int32_t size;             /**< elements */
    int32_t input_multiplier; /**< 0..32767 */
    int32_t input_left_shift; /**< a right shift, 0..31 (TFLite's name) */
    const uint16_t *table;    /**< 256 samples of the sigmoid in 0.16 */
} vmcu_sigmoid_s16_params;

/**
 * int16 SOFTMAX (16x8 models) over the last axis, whole tensor: `outer` rows of `depth` elements, each
 * difference to the row's maximum scaled by input_multiplier / input_shift (TFLite's
 * MultiplyByQuantizedMultiplier) into the exp table, the sum's reciprocal from the 1/(1+x) table
 * (see vmcu_softmax_s16.c).
 */
typedef struct {
    int32_t outer, depth;
    int32_t input_multiplier, input_shift; /**< shift -31..14 */
    const int16_t *exp_table;              /**< 513 values */
    const int16_t *reciprocal_table;       /**< 513 values */
} vmcu_softmax_s16_params;

/**
 * int16 RELU, RELU6 and LEAKY_RELU (16x8 models), whole tensor: `operation` 0..2 in that order (see
 * vmcu_unary_s16.c); RELU6 only clamps, the others rescale x - input_offset and add output_offset.
 */
typedef struct {
    int32_t operation;
    int32_t size; /**< elements */
    int32_t input_offset, output_offset;
    int32_t identity_multiplier, identity_shift; /**< shifts -31..14 */
    int32_t alpha_multiplier, alpha_shift;       /**< LEAKY_RELU below the zero point; multiplier may be < 0 */
    int32_t act_min, act_max;
} vmcu_unary_s16_params;

/** Most members of an int16 element-wise group (vmcu_group_s16_params). */
#define VMCU_GROUP_MAX_MEMBERS 16

/**
 * One member of an int16 element-wise group: the params struct its single step would have, behind the
 * one pointer of its kind that is not NULL (LOGISTIC/TANH, RELU/RELU6/LEAKY_RELU, or ADD/SUB/MUL of two
 * same-shaped activations), where each operand comes from (a block buffer >= 0, or external input k as
 * -1 - k; the second unused for one operand) and the block buffer it writes (-1: the group's output, the
 * last member).
 */
typedef struct {
    const vmcu_sigmoid_s16_params *sigmoid;
    const vmcu_unary_s16_params *unary;
    const vmcu_binary_s16_params *binary;
    int32_t sources[2];
    int32_t result;
} vmcu_group_member;

/**
 * int16 element-wise steps run as one (16x8 models): `size` elements walked in blocks of `block`, each
 * member applied to the block in order, the values made inside the group kept in `num_buffers` block
 * buffers of `block` int16 elements in the step's workspace (see vmcu_group_s16.c).
 */
typedef struct {
    int32_t size;
    int32_t block;
    int32_t num_members;
    int32_t num_buffers;
    const vmcu_group_member *const *members; /**< [num_members] */
} vmcu_group_s16_params;

/**
 * int16 PRELU (16x8 models) with a constant int8 alpha, whole tensor walked in output order: the input
 * element by element, alpha by `alpha_strides` (0 where it broadcasts); see vmcu_prelu_s16.c.
 */
typedef struct {
    int32_t rank;
    int32_t dims[VMCU_MAX_DIMS];
    int32_t alpha_strides[VMCU_MAX_DIMS];
    const int8_t *alpha;
    int32_t alpha_size;
    int32_t input_offset, alpha_offset, output_offset;
    int32_t identity_multiplier, identity_shift; /**< shift -31..14 */
    int32_t alpha_multiplier, alpha_shift;       /**< shift -31..6 */
} vmcu_prelu_s16_params;

/** AVERAGE_POOL_2D and MAX_POOL_2D. */
typedef struct {
    vmcu_dims input, output;
    int32_t filter_h, filter_w, stride_h, stride_w, pad_h, pad_w;
    int32_t act_min, act_max;
    int32_t padded;    /**< 1: a PAD folded in: taps outside the input hold pad_value and count (TFLite's own padding: 0, skipped) */
    int32_t pad_value;
} vmcu_pool_params;

/**
 * MEAN over axes of a tensor of up to VMCU_MAX_DIMS dimensions; `reduce` flags the reduced ones.
 *
 * The converter merges neighbouring dimensions that are both reduced or both kept and drops
 * dimensions of size 1, so a global average pool over [1, H, W, C] is {H*W reduced, C kept}.
 */
typedef struct {
    int32_t rank;                /**< dimensions used, 1 to VMCU_MAX_DIMS */
    int32_t dims[VMCU_MAX_DIMS]; /**< input shape, outermost first */
    uint8_t reduce[VMCU_MAX_DIMS];
    int32_t count, input_zero_point, output_zero_point, multiplier, shift;
} vmcu_mean_params;

/** REDUCE_MAX over the dimensions `reduce` flags (merged like MEAN's). */
typedef struct {
    int32_t rank;                /**< dimensions used, 1 to VMCU_MAX_DIMS */
    int32_t dims[VMCU_MAX_DIMS]; /**< input shape, outermost first */
    uint8_t reduce[VMCU_MAX_DIMS];
} vmcu_reduce_params;

/** PAD of up to VMCU_MAX_DIMS dimensions (TFLite: 5); pad value = output zero point. */
typedef struct {
    int32_t rank;                  /**< dimensions used, 1 to VMCU_MAX_DIMS */
    int32_t input[VMCU_MAX_DIMS];  /**< input shape, outermost first */
    int32_t output[VMCU_MAX_DIMS]; /**< output shape */
    int32_t before[VMCU_MAX_DIMS]; /**< pad positions before the input in each dimension */
    int32_t pad_value;
} vmcu_pad_params;

/** SOFTMAX over the last dimension (gemmlowp fixed point). */
typedef struct {
    int32_t rows, depth;
    int32_t input_multiplier, input_left_shift, diff_min;
} vmcu_softmax_params;

/** LOG_SOFTMAX over the last dimension (gemmlowp fixed point). */
typedef struct {
    int32_t rows, depth;
    int32_t input_multiplier, input_left_shift;
    int32_t reverse_scaling_divisor, reverse_scaling_shift; /**< shift <= 0 */
    int32_t diff_min;
} vmcu_log_softmax_params;

/** L2_NORMALIZATION over the last dimension (gemmlowp fixed point). */
typedef struct {
    int32_t rows, depth, input_zero_point;
} vmcu_l2_normalization_params;

/** CONCATENATION (and PACK) of up to VMCU_MAX_STEP_INPUTS operands along one axis. */
typedef struct {
    int32_t outer;                               /**< product of the dimensions before the axis */
    int32_t num_operands;
    int32_t inner[VMCU_MAX_STEP_INPUTS];         /**< bytes of each operand per outer index */
    const int8_t *constants[VMCU_MAX_STEP_INPUTS]; /**< constant operands, or NULL for an activation */
} vmcu_concatenation_params;

/** ABS, RELU, RELU6, LEAKY_RELU, HARD_SWISH, LOGISTIC, TANH (int8): output byte = table[input byte as uint8_t]. */
typedef struct {
    int32_t size;
    const int8_t *table; /**< [256] */
} vmcu_lookup_params;

/** RESIZE_NEAREST_NEIGHBOR: source row/column of every output row/column, computed ahead. */
typedef struct {
    vmcu_dims input, output;
    const int32_t *source_y; /**< [output.h] */
    const int32_t *source_x; /**< [output.w] */
} vmcu_resize_params;

/**
 * RESIZE_BILINEAR: per output row and column {first source index, second source index, weight of
 * the second in 1/1024} (TFLite's integer interpolation, computed ahead).
 */
typedef struct {
    vmcu_dims input, output;
    const int32_t *rows; /**< [output.h][3] */
    const int32_t *cols; /**< [output.w][3] */
} vmcu_resize_bilinear_params;

/** GATHER: the input as [outer][axis_size][inner]; output rows in the order of `indices`. */
typedef struct {
    int32_t outer, axis_size, inner, count;
    const int32_t *indices; /**< [count], each in 0..axis_size - 1 */
} vmcu_gather_params;

/**
 * TFLite_Detection_PostProcess (fast non-max suppression with one class per detection, or regular,
 * per class): int8 box encodings [num_boxes][box_stride] and class predictions
 * [num_boxes][label_offset + num_classes] in, one float32 output `part` (0 boxes
 * [max_detections][4], 1 classes, 2 scores, 3 the count). Floats are held as their IEEE-754
 * single-precision bits, so the tables carry them exactly.
 */
typedef struct {
    int32_t num_boxes, box_stride, num_classes, label_offset, max_detections, part;
    int32_t regular;              /**< 1: regular (per-class) non-max suppression, 0: fast */
    int32_t detections_per_class; /**< regular: boxes kept per class */
    uint32_t score_threshold, iou_threshold; /**< float bits */
    uint32_t y_scale, x_scale, h_scale, w_scale; /**< float bits */
    const uint32_t *anchors;                 /**< [num_boxes][4] float bits: y, x, h, w */
    const uint32_t *box_values;   /**< [256] float bits: each int8 box encoding q dequantized, at q + 128 */
    const uint32_t *class_values; /**< [256] float bits: each int8 class prediction dequantized */
} vmcu_detection_postprocess_params;

/** CONSTANT: a model output computed from constants when converting, copied from flash at each run. */
typedef struct {
    int32_t bytes;      /**< the output's bytes */
    const int8_t *data; /**< [bytes] */
} vmcu_constant_params;

/**
 * READ_VARIABLE and ASSIGN_VARIABLE: a resource variable's `bytes` bytes at `state_offset` in the
 * state region, copied into the step's output (READ) or from its value (ASSIGN): the input, or
 * `constant` when the value is a constant (NULL otherwise; always NULL for READ).
 */
typedef struct {
    uint32_t state_offset;
    uint32_t bytes;
    const int8_t *constant;
} vmcu_variable_params;

/**
 * CALL_ONCE: while the flag word at `flag_offset` in the state region is 0, value i (`sizes[i]`
 * bytes of `data`, after those of the values before it) is copied to `offsets[i]` in the region,
 * then the flag is set. A step without output (VMCU_NO_OUTPUT), as ASSIGN_VARIABLE's.
 */
typedef struct {
    uint32_t flag_offset;
    int32_t num_values;
    const uint32_t *offsets; /**< [num_values] each a variable's offset in the state region */
    const uint32_t *sizes;   /**< [num_values] its bytes */
    const int8_t *data;      /**< the values, back to back */
} vmcu_call_once_params;

/**
 * BATCH_MATMUL, int8: operands extended to 5-D ([b0][b1][b2][rows][cols], a batch dimension of 1
 * broadcast), the left one read transposed in its last two dimensions when `adj_x`, the right one
 * when `adj_y`; output [batch][M][N] row-major. A constant operand is in the params (NULL for an
 * activation, which is then the step's next input).
 */
typedef struct {
    int32_t lhs_dims[5], rhs_dims[5];
    int32_t adj_x, adj_y;
    int32_t lhs_offset, rhs_offset, output_offset; /**< -zero points of the operands; the output's */
    int32_t output_multiplier, output_shift;
    const int8_t *lhs_constant, *rhs_constant;
} vmcu_batch_matmul_params;

/**
 * BATCH_MATMUL in 16x8: vmcu_batch_matmul_params' shapes and adjoints over int16 operands with zero
 * points 0; each element's int64 sum requantized by the 64-bit form (shift at most 14) to int16.
 */
typedef struct {
    int32_t lhs_dims[5], rhs_dims[5];
    int32_t adj_x, adj_y;
    int32_t output_multiplier, output_shift;
    const int16_t *lhs_constant, *rhs_constant;
} vmcu_batch_matmul_s16_params;

/** CAST between integer types (vmcu_type: int8, int16, int32, uint32): each element modulo 2^bits. */
typedef struct {
    int32_t count;       /**< elements */
    uint8_t input_type;  /**< vmcu_type */
    uint8_t output_type; /**< vmcu_type */
} vmcu_cast_params;

/**
 * SignalWindow: int16 samples times their weights, >> shift, saturated. The weights are written out
 * for every sample (a window that repeats over the input is repeated here), so that their length is
 * the samples' count, which the tensors' bytes check.
 */
typedef struct {
    int32_t count;          /**< samples */
    int32_t shift;          /**< 0..31 */
    const int16_t *weights; /**< [count] */
} vmcu_signal_window_params;

/** SignalFftAutoScale, one of its two outputs: part 0 the samples shifted left, part 1 the shift (int32). */
typedef struct {
    int32_t size; /**< samples read */
    int32_t part; /**< 0 or 1 */
} vmcu_signal_fft_auto_scale_params;

/** Radix stages of a SignalRfft's complex FFT (fft_length / 2 <= 8192 points: at most 7 of radix 4 or 2). */
#define VMCU_RFFT_MAX_FACTORS 8
#define VMCU_RFFT_FACTOR_INTS 16 /**< 2 x VMCU_RFFT_MAX_FACTORS */

/**
 * SignalRfft, int16: kissfft's fixed-point real FFT of each row, zero-padded to fft_length; Q15
 * twiddles computed by the converter. Scratch: the padded row and the complex FFT, int16 (2 x
 * fft_length each), plus 3 bytes to align them.
 */
typedef struct {
    int32_t fft_length;   /**< a power of two, 4 to 16384 */
    int32_t input_length; /**< samples per row, 1 to fft_length */
    int32_t rows;
    int32_t num_factors;  /**< (radix, remaining points) pairs used in factors */
    int32_t factors[VMCU_RFFT_FACTOR_INTS]; /**< (radix, remaining points) pairs, then zeros */
    const int16_t *twiddles;       /**< [fft_length / 2][2]: cos, sin of -2 pi k / (fft_length / 2) */
    const int16_t *super_twiddles; /**< [fft_length / 4][2]: of -pi ((k + 1) / (fft_length / 2) + 1 / 2) */
} vmcu_signal_rfft_params;

/** SignalEnergy: re^2 + im^2 of the int16 pairs [start, end) as uint32, 0 for the other outputs. */
typedef struct {
    int32_t size; /**< output elements */
    int32_t start, end;
} vmcu_signal_energy_params;

#define VMCU_MAX_COPY_DIMS 5

/**
 * TRANSPOSE, STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK and TILE: output element i (flat, row-major over
 * output_dims) is input element input_start + sum over d of index[d] * input_strides[d].
 */
typedef struct {
    int32_t rank;                              /**< dimensions used, 1 to VMCU_MAX_COPY_DIMS */
    int32_t output_dims[VMCU_MAX_COPY_DIMS];
    int32_t input_strides[VMCU_MAX_COPY_DIMS]; /**< input elements per step along each output dimension */
    int32_t input_start;                       /**< input element of output element 0 */
} vmcu_strided_copy_params;

/**
 * SVDF, int8 with int16 time weights and state: `filters` = `units` x `rank` rows of feature
 * weights [filters][input_size] and time weights [filters][memory]; the state, [batch][filters]
 * [memory] int16, lives at `state_offset` in the state region.
 */
typedef struct {
    int32_t batch, input_size, filters, units, rank, memory;
    int32_t input_offset, output_offset;          /**< -input zero point, output zero point */
    int32_t feature_multiplier, feature_shift;    /**< input x feature weights -> state */
    int32_t output_multiplier, output_shift;      /**< state x time weights -> output */
    uint32_t state_offset;
    const int8_t *weights_feature;
    const int16_t *weights_time;
    const int32_t *bias; /**< [units] */
} vmcu_svdf_params;

/** QUANTIZE int8 -> int8 (requantization). */
typedef struct {
    int32_t size, input_zero_point, output_zero_point, multiplier, shift;
} vmcu_quantize_params;

/** REQUANTIZE: a 16x8 model's QUANTIZE between integer types other than int8 -> int8. */
typedef struct {
    int32_t count;                     /**< elements */
    int32_t input_bytes, output_bytes; /**< element sizes: 1 -> 2 or 4; 2 -> 1, 2 or 4 */
    int32_t input_zero_point, output_zero_point, multiplier, shift;
} vmcu_requantize_params;

/**
 * PULLED_ROW: one row of a streamed model input pulled from the application (vmcu_stream) straight into
 * the UNPACK part it is (a recurrent model's frame), just before the first step that reads it. Its kernel
 * is generated (the row folded into its C); the fields are for the model's CRC.
 */
typedef struct {
    int32_t input;     /**< the model input */
    int32_t row;       /**< the row */
    int32_t row_bytes; /**< bytes of the row: the step's output */
} vmcu_pulled_row_params;

/**
 * LAYER_CHAIN: consecutive convolution layers fused (an inverted bottleneck among them), ended by a
 * global average pool or a residual ADD of the chain's input; the rings of rows between them are the
 * step's workspace. Layer j is conv[j] or depthwise[j] (the other entry is NULL).
 */
typedef struct {
    const vmcu_conv_params *const *conv;
    const vmcu_depthwise_params *const *depthwise;
    const vmcu_binary_arith *add; /**< residual ADD of the chain's input (operand order folded into the C), or NULL */
} vmcu_layer_chain_params;

/**
 * The RAM a run uses, all of it the application's (CMSIS-NN style: sized by generated constants).
 * Two models, or two runs of one model, may run concurrently with separate memories.
 */
typedef struct {
    int8_t *pool;           /**< <PREFIX>_POOL_BYTES: every activation; the inputs and outputs live here */
    uint32_t pool_bytes;
    int8_t *scratch;        /**< <PREFIX>_SCRATCH_BYTES: a runtime kernel's output segment before it is stored */
    uint32_t scratch_bytes;
    int8_t *state;          /**< <PREFIX>_STATE_BYTES, 4-byte aligned, kept between runs: variable tensors
                                 (an LSTM's or SVDF's state); NULL/0 for models without state */
    uint32_t state_bytes;
} vmcu_memory;

/** A variable tensor's initial value in the state region: `bytes` bytes of `fill` from `offset`. */
typedef struct {
    uint32_t offset;
    uint32_t bytes;
    int8_t fill;
} vmcu_state_init;

/**
 * A model's input or output as the application sees it.
 *
 * A streamed port (rows > 0) never passes through vmcu_input()/vmcu_output(): an input whose
 * tensor holds `bytes` bytes is pulled whole into it (row r at tensor byte r * bytes / rows), row
 * by row in order, just before step `step` runs; an input whose tensor has 0 bytes is pulled by
 * step `step`'s own kernel, row by row into its ring (vmcu_pull_row()); an output is pushed row by
 * row (row r from tensor byte r * bytes / rows), in order, right after step `step` returns VMCU_OK,
 * or, where its tensor has 0 bytes, by step `step`'s own kernel as it makes each row, from its
 * ring (vmcu_push_row()).
 */
typedef struct {
    uint16_t tensor;
    float scale;        /**< 0 (and zero_point 0): a tensor in its own type (float32 values), not quantized */
    int32_t zero_point;
    uint32_t bytes;
    uint32_t rows;  /**< 0: whole in the pool (vmcu_input()/vmcu_output()); > 0: streamed, `rows` rows of
                         bytes / rows bytes each, through vmcu_stream */
    uint16_t step;  /**< streamed: the step that reads the input first, or makes the output */
    uint8_t type;   /**< vmcu_type of its elements (bytes is a multiple of their size) */
} vmcu_io;

/** Writes row `row` (0, 1, ... in order, each once) of streamed input `input` to `dst`, `bytes` bytes;
 *  0 on success. May block. */
typedef int32_t (*vmcu_read_row_fn)(void *context, uint32_t input, uint32_t row, int8_t *dst, uint32_t bytes);

/** Takes row `row` of streamed output `output` (`bytes` bytes at `src`, valid only during the call);
 *  0 on success. */
typedef int32_t (*vmcu_write_row_fn)(void *context, uint32_t output, uint32_t row, const int8_t *src,
                                     uint32_t bytes);

/** The application's side of the streamed inputs and outputs (vmcu_invoke_streamed()): `context`
 *  is passed back to both callbacks as it is. */
typedef struct {
    vmcu_read_row_fn read_row;   /**< NULL when the model streams no input */
    vmcu_write_row_fn write_row; /**< NULL when the model streams no output */
    void *context;
} vmcu_stream;

/** A generated model: every table the runtime walks (const: it holds no RAM). */
struct vmcu_model {
    uint32_t pool_bytes;    /**< <PREFIX>_POOL_BYTES */
    uint32_t scratch_bytes; /**< <PREFIX>_SCRATCH_BYTES: the largest step.scratch (a runtime kernel's output segment) */
    uint16_t num_tensors, num_steps, num_inputs, num_outputs;
    const vmcu_tensor *tensors;
    const vmcu_step *steps;
    const vmcu_io *inputs;
    const vmcu_io *outputs;
    uint32_t state_bytes;   /**< <PREFIX>_STATE_BYTES: 0 for a model without variable tensors */
    uint32_t state_tag;     /**< the state region's first word once it holds this model's state */
    uint16_t num_state_init;
    const vmcu_state_init *state_init;
    uint32_t header_crc;    /**< CRC-32 of the integers above (the counts of the arrays: checked by every run) */
    uint32_t crc;           /**< CRC-32 of every integer of the tables and every constant (vmcu_verify_model) */
};

/**
 * UNIDIRECTIONAL_SEQUENCE_LSTM, int8 x int8 -> int16 cell: gates in TFLite's order (input, forget,
 * cell, output), each an input and a recurrent fully connected layer requantized to int16 at 2^-12;
 * both states live in the state region (ctx->state).
 */
typedef struct {
    const int8_t *input_weights;     /**< [4][units][input_size] */
    const int8_t *recurrent_weights; /**< [4][units][units] */
    const int32_t *input_bias;       /**< [4][units]: bias + input offset x weight row sum */
    const int32_t *recurrent_bias;   /**< [4][units]: output state offset x weight row sum */
    int32_t input_multiplier[4], input_shift[4];
    int32_t recurrent_multiplier[4], recurrent_shift[4];
    int32_t forget_cell_multiplier, forget_cell_shift; /**< forget gate x cell -> cell */
    int32_t input_cell_multiplier, input_cell_shift;   /**< input gate x cell gate -> cell */
    int32_t output_multiplier, output_shift, output_zero_point; /**< output gate x tanh(cell) -> output state */
    int32_t tanh_left_shift; /**< tanh(cell)'s input shift: 12 + log2(cell scale), in [-31, 14] */
    int32_t cell_clip;       /**< |cell| limit in cell units; -1: no clip */
    int32_t batch, steps, input_size, units;
    int32_t time_major;           /**< input [steps][batch][input_size], else [batch][steps][input_size] */
    uint32_t output_state_offset; /**< int8 [batch][units] at ctx->state + this */
    uint32_t cell_state_offset;   /**< int16 [batch][units] at ctx->state + this (even) */
} vmcu_lstm_params;

/**
 * UNIDIRECTIONAL_SEQUENCE_LSTM in 16x8: int16 input, output and output state (zero points 0), int8
 * weights, int64 gate biases (the input layers'; the recurrent layers have none), int16 cell state.
 * Each fully connected layer sums in int64 and is requantized by the 64-bit form to int16 at 2^-12.
 */
typedef struct {
    const int8_t *input_weights;     /**< [4][units][input_size] */
    const int8_t *recurrent_weights; /**< [4][units][units] */
    const int64_t *bias;             /**< [4][units], |bias| <= 2^46 */
    int32_t input_multiplier[4], input_shift[4]; /**< the 64-bit form's: shifts at most 14 */
    int32_t recurrent_multiplier[4], recurrent_shift[4];
    int32_t forget_cell_multiplier, forget_cell_shift; /**< forget gate x cell -> cell */
    int32_t input_cell_multiplier, input_cell_shift;   /**< input gate x cell gate -> cell */
    int32_t output_multiplier, output_shift;           /**< output gate x tanh(cell) -> output state */
    int32_t tanh_left_shift; /**< tanh(cell)'s input shift: 12 + log2(cell scale), in [-31, 14] */
    int32_t cell_clip;       /**< |cell| limit in cell units; -1: no clip */
    int32_t batch, steps, input_size, units;
    int32_t time_major;           /**< input [steps][batch][input_size], else [batch][steps][input_size] */
    uint32_t output_state_offset; /**< int16 [batch][units] at ctx->state + this (even) */
    uint32_t cell_state_offset;   /**< int16 [batch][units] at ctx->state + this (even) */
} vmcu_lstm_s16_params;

/*
 * The signal library's filter bank stages (the audio front end): whole-tensor kernels over 1-D
 * uint32 / uint64 channel arrays.
 */

/**
 * SignalFilterBank: `num_channels` + 1 table channels, each `widths[i]` spectrum bins from
 * `frequency_starts[i]` weighted from `weight_starts[i]` (every index inside `input_size` and
 * `weights_size`); the first `output_size` (<= num_channels) of the channel sums are written.
 */
typedef struct {
    int32_t num_channels, input_size, output_size, weights_size;
    const int16_t *weights, *unweights;           /**< [weights_size] */
    const int16_t *frequency_starts, *weight_starts, *widths; /**< [num_channels + 1] */
} vmcu_signal_filter_bank_params;

/** SignalFilterBankSquareRoot: `channels` uint64 in, uint32 out; the shift is the step's second
 *  input, or `constant_shift` when `shift_is_constant`. */
typedef struct {
    int32_t channels;
    int32_t shift_is_constant, constant_shift;
} vmcu_signal_square_root_params;

/** SignalFilterBankSpectralSubtraction: the coefficients as TFLite Micro's config holds them (uint32);
 *  the noise estimate, uint32 [num_channels], lives at `state_offset` in the state region. */
typedef struct {
    int32_t num_channels;
    uint32_t smoothing, one_minus_smoothing, alternate_smoothing, alternate_one_minus_smoothing;
    uint32_t min_signal_remaining;
    uint32_t smoothing_bits;            /**< 0..31 */
    uint32_t spectral_subtraction_bits; /**< 0..63 */
    int32_t clamping;
    uint32_t state_offset;
} vmcu_signal_spectral_subtraction_params;

/** NOISE_ESTIMATE: a spectral subtraction's estimate (uint32 [num_channels] at `state_offset` in the state
 *  region) copied into its output tensor. */
typedef struct {
    int32_t num_channels;
    uint32_t state_offset;
} vmcu_signal_noise_estimate_params;

/** SignalPCAN: `channels` energies and noise estimates; the gain table has VMCU_PCAN_LUT_SIZE values. */
#define VMCU_PCAN_LUT_SIZE 125
typedef struct {
    int32_t channels;
    int32_t snr_shift; /**< 0..63 */
    const int16_t *gain_lut;
} vmcu_signal_pcan_params;

/** SignalFilterBankLog: `channels` uint32 in, int16 out. */
typedef struct {
    int32_t channels;
    int32_t input_correction_bits; /**< 0..31 */
    uint32_t output_scale;
} vmcu_signal_filter_bank_log_params;

#ifdef __cplusplus
}
#endif

#endif /* VMCU_TYPES_H */
