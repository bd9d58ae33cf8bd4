/*
 * vmcu-tflite runtime: inline helpers shared by the kernels.
 *
 * Fixed-point arithmetic bit-exact with TFLite Micro's reference kernels (double rounding), and
 * access to the circular pool. A pool address wraps at most once (offsets are below the pool
 * size), so wrapping is a compare and a subtraction, never a division.
 */
#ifndef VMCU_SUPPORT_H
#define VMCU_SUPPORT_H

#include <stdint.h>
#include <string.h>

#include "vmcu_types.h"

#if defined(__ARM_FEATURE_SAT) && !defined(VMCU_NO_DSP)
#include <arm_acle.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Access tracing, for test builds only (tests/c/test_access_trace.py). With VMCU_TRACE_ACCESS
 * defined, vmcu_invoke() reports each step's views before its kernel runs, every pool access
 * through the helpers below is reported before it happens (in view coordinates), and vmcu_span()
 * returns NULL so that kernels take their per-byte paths: each byte is then reported when it is
 * really read, not when a pointer to it is taken.
 */
#ifdef VMCU_TRACE_ACCESS
void vmcu_trace_step(uint16_t step, const vmcu_view *inputs, uint8_t num_inputs, const vmcu_view *output);
void vmcu_trace_access(const vmcu_view *v, uint32_t offset, uint32_t len, int written);
#define VMCU_TRACE(v, offset, len, written) vmcu_trace_access((v), (offset), (len), (written))
#else
#define VMCU_TRACE(v, offset, len, written) ((void)0)
#endif

/**
 * gemmlowp::SaturatingRoundingDoublingHighMul. gemmlowp divides ab + nudge by 2^31 rounding
 * toward zero, with nudge 2^30 when ab >= 0 and 1 - 2^30 below. For ab < 0 that quotient is
 * ceil((ab + 1 - 2^30) / 2^31) = floor((ab + 2^30) / 2^31): the same floor as for ab >= 0, so one
 * 64-bit add and an arithmetic shift (SMULL, ADDS, ADC and a funnel shift) give the same bits.
 */
static inline int32_t vmcu_srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) {
        return INT32_MAX;
    }
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31);
}

/** gemmlowp::RoundingDivideByPOT: x / 2^exponent (0 <= exponent <= 31), halves away from zero. */
static inline int32_t vmcu_rdbpot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)((UINT32_C(1) << exponent) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/**
 * TFLite's MultiplyByQuantizedMultiplier: x * multiplier * 2^(shift - 31), double rounding:
 * RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x << left, multiplier), right).
 *
 * With a right shift r >= 1 both roundings happen in one 64-bit sum. With a = x * multiplier +
 * 2^30, the high mul is v = floor(a / 2^31) (see vmcu_srdhm), and RoundingDivideByPOT(v, r) is
 * floor((v + 2^(r-1) - [v < 0]) / 2^r); since v < 0 exactly when a < 0 and the added term is an
 * integer, that is floor((a + 2^(30+r) - [a < 0] * 2^31) / 2^(31+r)): the high word of the sum
 * shifted right by r - 1. No overflow: |x * multiplier| < 2^62 and 2^(30+r) <= 2^61.
 */
static inline int32_t vmcu_requantize(int32_t x, int32_t multiplier, int32_t shift)
{
    int64_t a;
    if (shift >= 0) {
        return vmcu_srdhm((int32_t)((uint32_t)x << shift), multiplier);
    }
    if (x == INT32_MIN && multiplier == INT32_MIN) {
        return vmcu_rdbpot(INT32_MAX, -shift);
    }
    a = (int64_t)x * (int64_t)multiplier + ((int64_t)1 << 30);
    a += (int64_t)((UINT32_C(1) << (-shift - 1)) - (a < 0 ? 1u : 0u)) << 31; /* (2^(r-1) - [a < 0]) * 2^31 >= 0 */
    return (int32_t)(a >> 32) >> (-shift - 1);
}

/**
 * TFLite's MultiplyByQuantizedMultiplier for an int64 accumulator (16x8 layers with an int64 bias):
 * the Q31 multiplier rounded to Q15 (at most 0x7FFF), the 64-bit product shifted right by 15 - shift
 * with rounding, its low 32 bits kept. The converter refuses shifts above 14 for such layers.
 */
static inline int32_t vmcu_requantize64(int64_t x, int32_t multiplier, int32_t shift)
{
    /* (multiplier + 2^15) >> 16 in 32 bits: the sum overflows exactly where the rounded multiplier passes
     * 0x7FFF, so the test is on the multiplier itself (one compare instead of 64-bit arithmetic) */
    const int32_t m16 = multiplier >= 0x7FFF8000 ? 0x7FFF : (multiplier + 0x8000) >> 16;
    const int32_t total = 15 - shift;
    return (int32_t)(uint32_t)(uint64_t)((x * (int64_t)m16 + ((int64_t)1 << (total - 1))) >> total);
}

/** Where a lane-ordered depthwise filter (int16, each group of four channels' taps in the order 0, 2,
 *  1, 3: the halfwords SXTB16 makes of a word, then of its rotation) holds the int8 filter's tap j. */
static inline int32_t vmcu_lane_order(int32_t j)
{
    return (j & ~3) | ((j & 1) << 1) | ((j >> 1) & 1);
}

static inline int32_t vmcu_clamp(int32_t x, int32_t lo, int32_t hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

/** x clamped to int8: one SSAT where the core has it (the compiler does not find it in the clamp). */
static inline int32_t vmcu_sat8(int32_t x)
{
#if defined(__ARM_FEATURE_SAT) && !defined(VMCU_NO_DSP)
    return __ssat(x, 8);
#else
    return vmcu_clamp(x, -128, 127);
#endif
}

/** x clamped to int16: one SSAT where the core has it. */
static inline int32_t vmcu_sat16(int32_t x)
{
#if defined(__ARM_FEATURE_SAT) && !defined(VMCU_NO_DSP)
    return __ssat(x, 16);
#else
    return vmcu_clamp(x, -32768, 32767);
#endif
}

/** The min and max of the index expressions of generated kernels (vmcu_tflite/kernels/index.py). */
static inline int32_t vmcu_min(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

static inline int32_t vmcu_max(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

/** Pool address of byte `offset` of the viewed tensor (offset < pool size). */
static inline uint32_t vmcu_addr(const vmcu_view *v, uint32_t offset)
{
    uint32_t a = v->base + offset;
    return a >= v->size ? a - v->size : a;
}

static inline int8_t vmcu_get(const vmcu_view *v, uint32_t offset)
{
    VMCU_TRACE(v, offset, 1u, 0);
    return v->pool[vmcu_addr(v, offset)];
}

static inline void vmcu_put(const vmcu_view *v, uint32_t offset, int8_t value)
{
    VMCU_TRACE(v, offset, 1u, 1);
    v->pool[vmcu_addr(v, offset)] = value;
}

/** A pointer to bytes [offset, offset + len) when they do not cross the end of the pool, else NULL. */
static inline const int8_t *vmcu_span(const vmcu_view *v, uint32_t offset, uint32_t len)
{
#ifdef VMCU_TRACE_ACCESS
    (void)v;
    (void)offset;
    (void)len;
    return (const int8_t *)0;
#else
    const uint32_t a = vmcu_addr(v, offset);
    return a + len <= v->size ? v->pool + a : (const int8_t *)0;
#endif
}

/**
 * vmcu_span for int16 elements (a 16x8 layer's activations): a pointer only where the bytes do not cross
 * the end of the pool and the address is aligned for int16_t, else NULL (the kernel then copies them).
 * Whatever the tables and the application's pool, a kernel never reads an int16_t at an odd address.
 */
static inline const int16_t *vmcu_span16(const vmcu_view *v, uint32_t offset, uint32_t len)
{
    const int8_t *p = vmcu_span(v, offset, len);
    if (p == 0 || ((uintptr_t)(const void *)p & 1u) != 0u) {
        return (const int16_t *)0;
    }
    return (const int16_t *)(const void *)p;
}

/**
 * vmcu_span for writing: where a generated GEMM's assembly stores a tile's outputs straight into
 * the pool (lower.dsp gemm_run), the bytes its stores would copy there. NULL under VMCU_TRACE_ACCESS,
 * so that traced builds store through vmcu_write_buffer, as the description says.
 */
static inline int8_t *vmcu_span_out(const vmcu_view *v, uint32_t offset, uint32_t len)
{
#ifdef VMCU_TRACE_ACCESS
    (void)v;
    (void)offset;
    (void)len;
    return (int8_t *)0;
#else
    const uint32_t a = vmcu_addr(v, offset);
    return a + len <= v->size ? v->pool + a : (int8_t *)0;
#endif
}

/** Copy `len` bytes of the view, starting at `offset`, to `dst` (at most two memcpy). */
static inline void vmcu_read(const vmcu_view *v, uint32_t offset, int8_t *dst, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    const uint32_t first = a + len <= v->size ? len : v->size - a;
    VMCU_TRACE(v, offset, len, 0);
    memcpy(dst, v->pool + a, first);
    memcpy(dst + first, v->pool, len - first);
}

/** Copy `len` bytes from `src` into the view at `offset` (at most two memmove: src may be the pool). */
static inline void vmcu_write(const vmcu_view *v, uint32_t offset, const int8_t *src, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    const uint32_t first = a + len <= v->size ? len : v->size - a;
    VMCU_TRACE(v, offset, len, 1);
    memmove(v->pool + a, src, first);
    memmove(v->pool, src + first, len - first);
}

/**
 * vmcu_write from a buffer of the kernel's own (a local array, never the pool): memcpy, which the
 * compiler turns into a few word loads and stores for a constant length, where memmove is a call
 * (newlib's copies a byte at a time below 16 bytes or between unaligned addresses).
 */
static inline void vmcu_write_buffer(const vmcu_view *v, uint32_t offset, const int8_t *src, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    VMCU_TRACE(v, offset, len, 1);
    if (a + len <= v->size) {
        memcpy(v->pool + a, src, len);
        return;
    }
    memcpy(v->pool + a, src, v->size - a);
    memcpy(v->pool, src + (v->size - a), len - (v->size - a));
}

/** Copy `len` bytes between two views of the same pool, first byte first (at most a few memmove).
 *
 * Safe when the destination overlaps the source as long as it does not start after it (a
 * streamed CONCATENATION operand moving towards lower addresses).
 */
static inline void vmcu_copy(const vmcu_view *dst, uint32_t dst_offset, const vmcu_view *src, uint32_t src_offset,
                             uint32_t len)
{
    while (len > 0) {
        const uint32_t d = vmcu_addr(dst, dst_offset), s = vmcu_addr(src, src_offset);
        uint32_t run = len;
        if (run > dst->size - d) {
            run = dst->size - d;
        }
        if (run > src->size - s) {
            run = src->size - s;
        }
        VMCU_TRACE(src, src_offset, run, 0);
        VMCU_TRACE(dst, dst_offset, run, 1);
        memmove(dst->pool + d, src->pool + s, run);
        dst_offset += run;
        src_offset += run;
        len -= run;
    }
}

/**
 * @brief Pull row `row` of streamed input `input` from the application (ctx->stream->read_row)
 *        straight into the view at byte `offset`: pool address (view->base + offset) % view->size.
 *
 * A generated kernel that reads a streamed input row by row into its own ring calls it once per
 * row, rows in increasing order, each once. The row is one run of pool bytes: the planner never
 * places a pulled row across the end of the pool, so one that would cross it is a bad model.
 * @return VMCU_OK; VMCU_ERROR_BAD_MODEL (the row would cross the end of the pool: nothing called);
 *         VMCU_ERROR_BAD_ARGUMENT (no stream or no read_row); VMCU_ERROR_STREAM (the callback
 *         returned non-zero)
 */
vmcu_status vmcu_pull_row(const vmcu_context *ctx, const vmcu_view *view, uint32_t offset, uint32_t input,
                          uint32_t row, uint32_t bytes);

/**
 * @brief Push row `row` of streamed output `output` to the application (ctx->stream->write_row)
 *        straight from the view at byte `offset`, as vmcu_pull_row() pulls one.
 *
 * A generated kernel that makes a streamed output row by row in its own ring calls it once per
 * row, as soon as the row is made, rows in increasing order, each once.
 * @return VMCU_OK; VMCU_ERROR_BAD_MODEL (the row would cross the end of the pool: nothing called);
 *         VMCU_ERROR_BAD_ARGUMENT (no stream or no write_row); VMCU_ERROR_STREAM (the callback
 *         returned non-zero)
 */
vmcu_status vmcu_push_row(const vmcu_context *ctx, const vmcu_view *view, uint32_t offset, uint32_t output,
                          uint32_t row, uint32_t bytes);

/**
 * Element `index` of a view of `size`-byte little-endian elements (1, 2, 4 or 8), as the low bits of
 * a uint64 (not sign-extended). The planner keeps such tensors whole and aligned, but the bytes are
 * read one by one through the view, so that nothing depends on the pool's alignment or byte order.
 */
static inline uint64_t vmcu_load_le(const vmcu_view *v, uint32_t index, uint32_t size)
{
    uint8_t bytes[8];
    uint64_t value = 0u;
    uint32_t i;
    vmcu_read(v, index * size, (int8_t *)bytes, size);
    for (i = size; i > 0u; --i) {
        value = (value << 8) | bytes[i - 1u];
    }
    return value;
}

/** Store the low `size` bytes of `value` as element `index` of the view, little-endian. */
static inline void vmcu_store_le(const vmcu_view *v, uint32_t index, uint32_t size, uint64_t value)
{
    uint8_t bytes[8];
    uint32_t i;
    for (i = 0u; i < size; ++i) {
        bytes[i] = (uint8_t)(value >> (8u * i));
    }
    vmcu_write_buffer(v, index * size, (const int8_t *)bytes, size);
}

/** Set `len` bytes of the view, from `offset` on, to `value`. */
static inline void vmcu_fill(const vmcu_view *v, uint32_t offset, int8_t value, uint32_t len)
{
    const uint32_t a = vmcu_addr(v, offset);
    const uint32_t first = a + len <= v->size ? len : v->size - a;
    VMCU_TRACE(v, offset, len, 1);
    memset(v->pool + a, value, first);
    memset(v->pool, value, len - first);
}

/**
 * Set the `len` bytes of a kernel's small stack buffer to `value`, a word at a time: a memset call
 * costs more than the few stores of a window's padding (the length is a constant, so the loop
 * unrolls).
 */
static inline void vmcu_set_s8(int8_t *dst, int8_t value, int32_t len)
{
    const uint32_t word = (uint32_t)(uint8_t)value * 0x01010101u;
    int32_t i;
    for (i = 0; i + 4 <= len; i += 4) {
        memcpy(dst + i, &word, 4);
    }
    for (; i < len; ++i) {
        dst[i] = value;
    }
}

/**
 * The taps k in [*lo, *hi) of a window with `kernel` taps, `dilation` apart, starting at input
 * position `origin`, that fall inside an input of `size` positions (0 <= origin + k * dilation < size).
 */
static inline void vmcu_tap_range(int32_t origin, int32_t size, int32_t kernel, int32_t dilation, int32_t *lo,
                                  int32_t *hi)
{
    int32_t l = 0, h;
    if (origin >= size || kernel < 1 || dilation < 1) {
        *lo = *hi = 0;
        return;
    }
    if (origin < 0) {
        l = (-origin + dilation - 1) / dilation;
    }
    h = (size - 1 - origin) / dilation + 1;
    if (h > kernel) {
        h = kernel;
    }
    *lo = l < h ? l : h;
    *hi = h;
}

/* ---- gemmlowp fixed point (int8 SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION) --------------------------------------
 * A FixedPoint<int32_t, I> is handled as its raw int32. Additions wrap like two's complement
 * int32 (done in uint32: no signed overflow).
 */

static inline int32_t vmcu_add_wrap(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int32_t vmcu_sub_wrap(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

/** gemmlowp::SaturatingRoundingMultiplyByPOT: x * 2^exponent, saturating up, rounding down. */
static inline int32_t vmcu_srmbpot(int32_t x, int32_t exponent)
{
    int32_t threshold;
    if (exponent == 0) {
        return x;
    }
    if (exponent < 0) {
        return vmcu_rdbpot(x, -exponent);
    }
    threshold = (int32_t)(((uint32_t)1 << (31 - exponent)) - 1u);
    if (x > threshold) {
        return INT32_MAX;
    }
    if (x < -threshold) {
        return INT32_MIN;
    }
    return (int32_t)((uint32_t)x << exponent);
}

/** gemmlowp exp(a) for a in [-1/4, 0), raw Q0.31 in and out. */
static inline int32_t vmcu_exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a)
{
    const int32_t constant_term = 1895147668;    /* exp(-1/8) */
    const int32_t constant_1_over_3 = 715827883; /* 1/3 */
    const int32_t x = vmcu_add_wrap(a, 1 << 28); /* a + 1/8 */
    const int32_t x2 = vmcu_srdhm(x, x);
    const int32_t x3 = vmcu_srdhm(x2, x);
    const int32_t x4 = vmcu_srdhm(x2, x2);
    const int32_t x4_over_4 = vmcu_srmbpot(x4, -2);
    const int32_t poly =
        vmcu_srmbpot(vmcu_add_wrap(vmcu_srdhm(vmcu_add_wrap(x4_over_4, x3), constant_1_over_3), x2), -1);
    return vmcu_add_wrap(constant_term, vmcu_srdhm(constant_term, vmcu_add_wrap(x, poly)));
}

/** gemmlowp exp(a) for a raw a <= 0 with `integer_bits` integer bits; raw Q0.31 result. */
static inline int32_t vmcu_exp_on_negative_values(int32_t a, int32_t integer_bits)
{
    /* exp(-2^k) in Q0.31 for k = -2 .. 4 */
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int32_t fractional_bits = 31 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t mask = one_quarter - 1;
    const int32_t a_mod_quarter_minus_one_quarter = vmcu_sub_wrap(a & mask, one_quarter);
    const int32_t remainder = vmcu_sub_wrap(a_mod_quarter_minus_one_quarter, a);
    int32_t result = vmcu_exp_on_interval_between_negative_one_quarter_and_0_excl(
        vmcu_srmbpot(a_mod_quarter_minus_one_quarter, integer_bits));
    int32_t k;
    for (k = -2; k <= 4; ++k) {
        if (integer_bits > k && fractional_bits + k < 31 &&
            ((uint32_t)remainder & ((uint32_t)1 << (fractional_bits + k))) != 0u) {
            result = vmcu_srdhm(result, barrel[k + 2]);
        }
    }
    if (integer_bits > 5 && a < -((int32_t)1 << (36 - integer_bits))) { /* below -32: exp is 0 */
        result = 0;
    }
    return a == 0 ? INT32_MAX : result;
}

/** gemmlowp 1 / (1 + a) for a raw Q0.31 a in [0, 1); raw Q0.31 result (three Newton-Raphson steps). */
static inline int32_t vmcu_one_over_one_plus_x_for_x_in_0_1(int32_t a)
{
    const int64_t sum = (int64_t)a + (int64_t)INT32_MAX;
    const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    const int32_t constant_48_over_17 = 1515870810;   /* Q2.29 */
    const int32_t constant_neg_32_over_17 = -1010580540; /* Q2.29 */
    int32_t x = vmcu_add_wrap(constant_48_over_17, vmcu_srdhm(half_denominator, constant_neg_32_over_17));
    int i;
    for (i = 0; i < 3; ++i) {
        const int32_t one_minus_half_denominator_times_x =
            vmcu_sub_wrap((int32_t)1 << 29, vmcu_srdhm(half_denominator, x));
        x = vmcu_add_wrap(x, vmcu_srmbpot(vmcu_srdhm(x, one_minus_half_denominator_times_x), 2));
    }
    return vmcu_srmbpot(x, 1);
}

/** Leading zero bits of x (32 for 0). */
static inline int32_t vmcu_clz32(uint32_t x)
{
    int32_t n = 0;
    if (x == 0u) {
        return 32;
    }
    while ((x & 0x80000000u) == 0u) {
        x <<= 1;
        ++n;
    }
    return n;
}

/** TFLite's GetReciprocal: Q0.31 of 2^num_bits_over_unit / x, x with `x_integer_digits` integer bits. */
static inline int32_t vmcu_get_reciprocal(int32_t x, int32_t x_integer_digits, int32_t *num_bits_over_unit)
{
    const int32_t headroom_plus_one = vmcu_clz32((uint32_t)x);
    const uint32_t shifted = headroom_plus_one < 32 ? (uint32_t)x << headroom_plus_one : 0u;
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    return vmcu_one_over_one_plus_x_for_x_in_0_1((int32_t)(shifted - 0x80000000u));
}

/**
 * TFLite's integer ADD of one pair: both inputs offset, shifted left, scaled to a common scale,
 * added, requantized. Each scaling is RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(.)),
 * with shifts <= 0 (multipliers below one): vmcu_requantize computes exactly that.
 */
static inline int8_t vmcu_add_pair(const vmcu_binary_arith *p, int32_t a, int32_t b)
{
    const int32_t scale = (int32_t)1 << p->left_shift;
    const int32_t s1 = vmcu_requantize((a + p->input1_offset) * scale, p->input1_multiplier, p->input1_shift);
    const int32_t s2 = vmcu_requantize((b + p->input2_offset) * scale, p->input2_multiplier, p->input2_shift);
    const int32_t v = vmcu_requantize(vmcu_add_wrap(s1, s2), p->output_multiplier, p->output_shift) + p->output_offset;
    return (int8_t)vmcu_clamp(v, p->act_min, p->act_max);
}

#ifdef __cplusplus
}
#endif

#endif /* VMCU_SUPPORT_H */
