/*
 * vmcu-tflite runtime: what the checks and digests of the kernels share.
 *
 * Each params struct has one check, next to the kernel that reads it, run on every step before a
 * run (vmcu_invoke) and by vmcu_verify_model(): it compares every extent the kernel will touch
 * (element counts and shapes against tensor bytes, the scratch, the workspace, the state) and every
 * value its arithmetic assumes (zero points, shifts, clamps) with the tables, so that no table,
 * however wrong, makes a kernel leave its buffers or overflow. Generated kernels have theirs
 * generated beside them, with their shapes as constants.
 *
 * Each params struct also has one digest: its integers in declaration order, each as 4 bytes
 * little-endian (sign-extended), a fixed-size array member element by element the same way, then
 * the constants its pointers reach, element by element in their own width, little-endian; a table
 * of pointers to params structs, each struct in turn. The converter folds the same sequence into
 * the model's `crc` (vmcu_tflite/codegen/integrity.py).
 */
#ifndef VMCU_CHECK_H
#define VMCU_CHECK_H

#include <stdint.h>

#include "vmcu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -- checks ------------------------------------------------------------------------------------ */

/** 1 when lo <= v <= hi. */
static inline int vmcu_in_range(int32_t v, int32_t lo, int32_t hi)
{
    return v >= lo && v <= hi;
}

/** The tensor entry of the step's input `i`, NULL when the step has fewer inputs. */
static inline const vmcu_tensor *vmcu_input_tensor(const vmcu_model *model, const vmcu_step *step, uint32_t i)
{
    return i < step->num_inputs ? &model->tensors[step->inputs[i]] : (const vmcu_tensor *)0;
}

/** Bytes of the step's input `i` (0 when there is no such input). */
static inline uint32_t vmcu_input_bytes(const vmcu_model *model, const vmcu_step *step, uint32_t i)
{
    return i < step->num_inputs ? model->tensors[step->inputs[i]].bytes : 0u;
}

static inline uint32_t vmcu_output_bytes(const vmcu_model *model, const vmcu_step *step)
{
    return model->tensors[step->output].bytes;
}

/**
 * 1 when a kernel may touch the first `bytes` bytes of `tensor`: it holds them and, if `flat`
 * (read through plain pointers, no wrap test), they do not cross the end of the pool. The tables
 * check already found the tensor's offset and bytes within the pool.
 */
static inline int vmcu_tensor_holds(const vmcu_model *model, const vmcu_tensor *tensor, uint32_t bytes, int flat)
{
    return tensor != 0 && bytes <= tensor->bytes && (!flat || bytes <= model->pool_bytes - tensor->offset);
}

/**
 * 1 when the step's workspace holds `capacity` bytes from `at` (a fused chain's ring, an in-place
 * plane): within the pool and, if `flat`, not crossing its end.
 */
static inline int vmcu_workspace_holds(const vmcu_model *model, const vmcu_step *step, uint32_t at, uint32_t capacity,
                                       int flat)
{
    uint32_t base;
    if (at > model->pool_bytes || capacity > model->pool_bytes - at) {
        return 0;
    }
    base = step->workspace + at; /* workspace < pool_bytes: no overflow */
    base = base >= model->pool_bytes ? base - model->pool_bytes : base;
    return !flat || capacity <= model->pool_bytes - base;
}

/** The product of `n` dimensions, each at least 1; 0 when one is not or the product passes 2^31 - 1. */
static inline uint32_t vmcu_product(const int32_t *dims, int32_t n)
{
    uint32_t product = 1u;
    int32_t i;
    for (i = 0; i < n; ++i) {
        if (dims[i] < 1 || (uint32_t)dims[i] > UINT32_C(0x7FFFFFFF) / product) {
            return 0u;
        }
        product *= (uint32_t)dims[i];
    }
    return product;
}

/** a * b, or 0 when either is below 1 or the product passes 2^31 - 1. */
static inline uint32_t vmcu_times(int32_t a, int32_t b)
{
    const int32_t dims[2] = {a, b};
    return vmcu_product(dims, 2);
}

/**
 * 1 when the step walks `elements` elements (or bytes) `segment` at a time, at least one, and a
 * segment of them fits its scratch: the runtime kernels compute each output segment in the scratch.
 */
static inline int vmcu_segments_fit(const vmcu_step *step, uint32_t elements)
{
    return step->segment >= 1u && (step->segment < elements ? step->segment : elements) <= step->scratch;
}

/** 1 when [act_min, act_max] is a clamp within int8, in order. */
static inline int vmcu_clamp_ok(int32_t act_min, int32_t act_max)
{
    return vmcu_in_range(act_min, -128, 127) && vmcu_in_range(act_max, act_min, 127);
}

/** The elements of an NHWC shape: vmcu_product of its four dimensions. */
static inline uint32_t vmcu_dims_product(const vmcu_dims *d)
{
    const int32_t dims[4] = {d->n, d->h, d->w, d->c};
    return vmcu_product(dims, 4);
}

/** 1 when NHWC shapes `input` and `output` are exactly the bytes of the step's input 0 and output
 *  (every dimension at least 1) and have the same batch: the shapes of a pool, a resize, a
 *  transposed convolution. */
int vmcu_nhwc_ok(const vmcu_model *model, const vmcu_step *step, const vmcu_dims *input, const vmcu_dims *output);

/**
 * 1 when the `bytes` bytes at `offset` of the state region are exactly one variable tensor's (an
 * entry of the model's initial state, which the tables check found inside the region) and
 * `offset` is a multiple of `alignment` (a power of two up to 4: the region itself is 4-byte
 * aligned). Holding a kernel's state to a whole variable, not just to the region, keeps it off
 * the other variables and ties the shape it is derived from to the converter's.
 */
static inline int vmcu_state_holds(const vmcu_model *model, uint32_t offset, uint32_t bytes, uint32_t alignment)
{
    uint16_t i;
    if (bytes == 0u || (offset & (alignment - 1u)) != 0u) {
        return 0;
    }
    for (i = 0; i < model->num_state_init; ++i) {
        if (model->state_init[i].offset == offset && model->state_init[i].bytes == bytes) {
            return 1;
        }
    }
    return 0;
}

/**
 * A conv, depthwise or fully connected layer's params as a generated kernel reads them (the three
 * structs share these fields): input and output offsets of int8 zero points, a clamp within int8
 * and in order. Its per-channel multipliers and shifts are constants, like its weights: covered by
 * vmcu_verify_model().
 */
int vmcu_layer_ok(int32_t input_offset, int32_t output_offset, const vmcu_requant *requant);

/** The same for a 16x8 layer (int16 activations): offsets 0 (int16 zero points are), a clamp within
 *  int16 and in order. */
int vmcu_layer16_ok(int32_t input_offset, int32_t output_offset, const vmcu_requant *requant);

/** A residual ADD's or a runtime ADD's (or SUB's) arithmetic: offsets of int8 zero points, shifts
 *  that neither the scaling nor a left shift (TFLite's: 20) can overflow, a clamp within int8. The
 *  tables of scaled inputs are constants: vmcu_verify_model() covers their values. */
int vmcu_binary_arith_ok(const vmcu_binary_arith *arith);

/* -- digests ----------------------------------------------------------------------------------- */

/** CRC-32 (the zlib/IEEE one) of `n` bytes continued from `crc` (0 to start). Constants are folded
 *  in as their bytes in memory: little-endian on every core the runtime targets. */
uint32_t vmcu_crc32(uint32_t crc, const void *bytes, uint32_t n);

/** One integer as 4 bytes, little-endian (a signed one sign-extended first). */
uint32_t vmcu_crc32_u32(uint32_t crc, uint32_t value);

/** `n` int32 values (a fixed-size array member, or a struct's fields gathered in declaration
 *  order), each as vmcu_crc32_u32. */
uint32_t vmcu_crc32_i32s(uint32_t crc, const int32_t *values, uint32_t n);

/** A vmcu_dims in declaration order (n, h, w, c), each as vmcu_crc32_u32. */
uint32_t vmcu_dims_digest(uint32_t crc, const vmcu_dims *dims);

/** A conv, depthwise or fully connected layer's params in declaration order: the offsets,
 *  `filter_bytes` bytes of filter, `channels` biases of `bias_bytes` bytes each, then the requant
 *  struct (`channels` multipliers and shifts, the clamp). The generated kernel knows the lengths. */
uint32_t vmcu_layer_digest(uint32_t crc, int32_t input_offset, int32_t output_offset, const void *filter,
                           uint32_t filter_bytes, const void *bias, uint32_t channels, uint32_t bias_bytes,
                           const vmcu_requant *requant);

/** vmcu_binary_arith in declaration order: its integers, and its tables of scaled inputs (256 each)
 *  where they are not NULL. */
uint32_t vmcu_binary_arith_digest(uint32_t crc, const vmcu_binary_arith *arith);

#ifdef __cplusplus
}
#endif

#endif /* VMCU_CHECK_H */
