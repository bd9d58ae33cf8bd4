/*
 * vmcu-tflite runtime: the multiply-accumulate inner loops of CONV_2D, DEPTHWISE_CONV_2D
 * and FULLY_CONNECTED, with a Cortex-M DSP-extension path. Shared by the hand-written kernels
 * and by the kernels vmcu_tflite/kernels/lower_c.py generates into a model's .c file.
 *
 * On a core with the DSP extension (__ARM_FEATURE_DSP, e.g. Cortex-M4/M7/M33) four int8 values
 * are loaded as one word and widened pairwise to 16 bits with SXTB16 (bytes 0 and 2) and SXTB16
 * of the word rotated by 8 (bytes 1 and 3); SXTAB16 adds the input offset to both halves on the
 * way. SMLAD then multiplies both halves and adds both products to an accumulator (dot
 * products: conv and fully connected); SMLABB / SMLATT multiply one half each (depthwise, where
 * every channel has its own accumulator). Every sum is an int32 sum of the same products as the
 * portable loop, added in another order: two's complement addition wraps the same way in any
 * order, so both paths give the same bits.
 *
 * On a core with Helium (__ARM_FEATURE_MVE, Cortex-M55/M85) the dot products over int8 rows take
 * the MVE path instead: 16 lanes per VLDRB.S8, VMLADAVA.S8 adding the 16 products to a scalar
 * accumulator, the last vector predicated by VCTP.8 (its inactive lanes load as 0 and read no
 * memory). The input offset is added once per row as x_offset times the sum of the weights
 * (VADDVA.S8): sum (x + o) w = sum x w + o sum w, exactly, in wrapping int32 arithmetic.
 *
 * Defining VMCU_EMULATE_DSP compiles the DSP path with C emulations of the instructions (to run
 * it on the host); VMCU_NO_DSP forces the portable path on a DSP core, VMCU_NO_MVE the DSP path on
 * a Helium core.
 */
#ifndef VMCU_DSP_H
#define VMCU_DSP_H

#include <stdint.h>
#include <string.h>

#include "vmcu_support.h"

#if defined(VMCU_EMULATE_DSP)
#define VMCU_DSP 1
#define VMCU_DSP_EMULATED 1
#elif defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && !defined(__ARM_BIG_ENDIAN) && \
    !defined(VMCU_NO_DSP)
#define VMCU_DSP 1
#define VMCU_DSP_EMULATED 0
#include <arm_acle.h>
#else
#define VMCU_DSP 0
#define VMCU_DSP_EMULATED 0
#endif

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1) && !defined(__ARM_BIG_ENDIAN) && !defined(VMCU_NO_MVE) && \
    !defined(VMCU_EMULATE_DSP)
#define VMCU_MVE 1
#include <arm_mve.h>
#else
#define VMCU_MVE 0
#endif

/* The declared size of a generated kernel's small int8 buffer. Helium stores vectors into them, and
 * GCC 12 keeps an int8 array of at most 8 bytes in a core register, where a vector store into it is an
 * internal compiler error: on Helium such buffers are declared 16 bytes (the kernel uses the first n). */
#if VMCU_MVE
#define VMCU_BUFFER_BYTES(n) ((n) < 16 ? 16 : (n))
#else
#define VMCU_BUFFER_BYTES(n) (n)
#endif

/* A generated kernel's buffer of widened (int16) inputs starts on a word: the DSP dot products read it
 * two words at a time (LDRD, which faults on a halfword boundary). */
#if defined(__GNUC__)
#define VMCU_WORD_ALIGNED __attribute__((aligned(4)))
#else
#define VMCU_WORD_ALIGNED
#endif

/* Helpers the generated kernels call in their inner loops, inlined whatever GCC's size estimate: a
 * copy out of line (GCC made some once the DSP dot product grew its call to the runtime's loop) takes
 * its pointers and lengths as variables and its accumulators through memory. */
#if defined(__GNUC__)
#define VMCU_INLINE static inline __attribute__((always_inline))
#else
#define VMCU_INLINE static inline
#endif

#if VMCU_DSP

/* Two 16-bit values in one word, `lo` in the low halfword: an operand pair for SMLAD. */
static inline uint32_t vmcu_pack16(int32_t lo, int32_t hi)
{
    return ((uint32_t)lo & 0xFFFFu) | (((uint32_t)hi & 0xFFFFu) << 16);
}

#if VMCU_DSP_EMULATED
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "VMCU_EMULATE_DSP assumes a little-endian host, as the Cortex-M targets are"
#endif

static inline int32_t vmcu_lo16(uint32_t x)
{
    return (int32_t)(int16_t)(uint16_t)(x & 0xFFFFu);
}

static inline int32_t vmcu_hi16(uint32_t x)
{
    return (int32_t)(int16_t)(uint16_t)(x >> 16);
}

/* SXTB16: bytes 0 and 2, sign-extended into the two halfwords. */
static inline uint32_t vmcu_sxtb16(uint32_t x)
{
    return vmcu_pack16((int8_t)(uint8_t)(x & 0xFFu), (int8_t)(uint8_t)((x >> 16) & 0xFFu));
}

/* SXTAB16: a's halfwords plus bytes 0 and 2 of x, sign-extended (each half wraps at 16 bits). */
static inline uint32_t vmcu_sxtab16(uint32_t a, uint32_t x)
{
    return vmcu_pack16(vmcu_lo16(a) + (int8_t)(uint8_t)(x & 0xFFu), vmcu_hi16(a) + (int8_t)(uint8_t)((x >> 16) & 0xFFu));
}

/* SMLAD: acc + lo(x) * lo(y) + hi(x) * hi(y), wrapping at 32 bits. */
static inline int32_t vmcu_smlad(uint32_t x, uint32_t y, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(vmcu_lo16(x) * vmcu_lo16(y)) + (uint32_t)(vmcu_hi16(x) * vmcu_hi16(y)));
}

/* SMLADX: acc + lo(x) * hi(y) + hi(x) * lo(y), wrapping at 32 bits (SMLAD with y's halves crossed). */
static inline int32_t vmcu_smladx(uint32_t x, uint32_t y, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(vmcu_lo16(x) * vmcu_hi16(y)) + (uint32_t)(vmcu_hi16(x) * vmcu_lo16(y)));
}

/* SMLABB: acc + lo(x) * lo(y). */
static inline int32_t vmcu_smlabb(uint32_t x, uint32_t y, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(vmcu_lo16(x) * vmcu_lo16(y)));
}

/* SMLATT: acc + hi(x) * hi(y). */
static inline int32_t vmcu_smlatt(uint32_t x, uint32_t y, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(vmcu_hi16(x) * vmcu_hi16(y)));
}

/* SMMULR: the high word of a * b + 2^31 (the 64-bit product, rounded). */
static inline int32_t vmcu_smmulr(int32_t a, int32_t b)
{
    return (int32_t)(((int64_t)a * (int64_t)b + ((int64_t)1 << 31)) >> 32);
}

/* SMMLAR: the high word of acc * 2^32 + a * b + 2^31, modulo 2^64 as the instruction wraps. */
static inline int32_t vmcu_smmlar(int32_t a, int32_t b, int32_t acc)
{
    const uint64_t sum = ((uint64_t)(uint32_t)acc << 32) + (uint64_t)((int64_t)a * (int64_t)b) + ((uint64_t)1 << 31);
    return (int32_t)(uint32_t)(sum >> 32);
}

#else /* the instructions themselves, through ACLE */

static inline uint32_t vmcu_sxtb16(uint32_t x)
{
    return (uint32_t)__sxtb16((int8x4_t)x);
}

static inline uint32_t vmcu_sxtab16(uint32_t a, uint32_t x)
{
    return (uint32_t)__sxtab16((int16x2_t)a, (int8x4_t)x);
}

static inline int32_t vmcu_smlad(uint32_t x, uint32_t y, int32_t acc)
{
    return __smlad((int16x2_t)x, (int16x2_t)y, acc);
}

static inline int32_t vmcu_smladx(uint32_t x, uint32_t y, int32_t acc)
{
    return __smladx((int16x2_t)x, (int16x2_t)y, acc);
}

static inline int32_t vmcu_smlabb(uint32_t x, uint32_t y, int32_t acc)
{
    return __smlabb((int32_t)x, (int32_t)y, acc);
}

static inline int32_t vmcu_smlatt(uint32_t x, uint32_t y, int32_t acc)
{
    return __smlatt((int32_t)x, (int32_t)y, acc);
}

static inline int32_t vmcu_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); /* ACLE has no SMMULR */
    return r;
}

static inline int32_t vmcu_smmlar(int32_t a, int32_t b, int32_t acc)
{
    int32_t r;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc)); /* nor SMMLAR */
    return r;
}

#endif /* VMCU_DSP_EMULATED */

/* Rotate right by 8 (one ROR instruction): brings bytes 1 and 3 where SXTB16 takes bytes 0 and 2. */
static inline uint32_t vmcu_ror8(uint32_t x)
{
    return (x >> 8) | (x << 24);
}

/* SXTB16 and SXTAB16 of x rotated by 8 (bytes 1 and 3): one instruction each, the rotation being
 * an operand of the instruction. GCC does not fold vmcu_ror8 into __sxtb16, so on GCC-compatible
 * compilers the instructions are written out; elsewhere (and emulated) they are the composition. */
static inline uint32_t vmcu_sxtb16_ror8(uint32_t x)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
#else
    return vmcu_sxtb16(vmcu_ror8(x));
#endif
}

static inline uint32_t vmcu_sxtab16_ror8(uint32_t a, uint32_t x)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
#else
    return vmcu_sxtab16(a, vmcu_ror8(x));
#endif
}

/* Bytes 0 and 2 (vmcu_offset02) or 1 and 3 (vmcu_offset13) of x plus the input offsets: SXTAB16, or
 * SXTB16 where the offsets are the constant 0 (an offset the converter folded into the bias), which
 * spares the register that would hold the 0. */
static inline uint32_t vmcu_offset02(uint32_t offsets, uint32_t x)
{
#if defined(__GNUC__)
    if (__builtin_constant_p(offsets) && offsets == 0u) {
        return vmcu_sxtb16(x);
    }
#endif
    return vmcu_sxtab16(offsets, x);
}

static inline uint32_t vmcu_offset13(uint32_t offsets, uint32_t x)
{
#if defined(__GNUC__)
    if (__builtin_constant_p(offsets) && offsets == 0u) {
        return vmcu_sxtb16_ror8(x);
    }
#endif
    return vmcu_sxtab16_ror8(offsets, x);
}

/* PKHBT (vmcu_pack16: lo's low halfword, hi's low halfword on top) and PKHTB (hi's high halfword,
 * lo's high halfword below): one instruction each, which GCC does not always find in the masks and
 * shifts. */
static inline uint32_t vmcu_pack_lo(uint32_t lo, uint32_t hi)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t r;
    __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(lo), "r"(hi));
    return r;
#else
    return vmcu_pack16((int32_t)lo, (int32_t)hi);
#endif
}

static inline uint32_t vmcu_pack_hi(uint32_t lo, uint32_t hi)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t r;
    __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(hi), "r"(lo));
    return r;
#else
    return (hi & 0xFFFF0000u) | (lo >> 16);
#endif
}

/* Four int8 as one (unaligned, little-endian) word. */
static inline uint32_t vmcu_load32(const int8_t *p)
{
    uint32_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* PKHBT v, v, LSL #16: the low halfword of v in both halves (an input offset for SXTAB16).
 * GCC's arm_acle.h has no __pkhbt, so the instruction is written out on GCC-compatible compilers. */
static inline uint32_t vmcu_broadcast16(int32_t v)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t r;
    __asm__("pkhbt %0, %1, %1, lsl #16" : "=r"(r) : "r"(v));
    return r;
#else
    return ((uint32_t)v & 0xFFFFu) | ((uint32_t)v << 16);
#endif
}

#endif /* VMCU_DSP */

#if VMCU_MVE
/* One step of vmcu_mve_dots: the products of the loaded vectors into the accumulators it uses
 * (a[2p + k] for input p and row k), the weights' sums into sum[k]. */
static inline void vmcu_mve_step(int8x16_t u0, int8x16_t u1, int8x16_t v0, int8x16_t v1, int two_inputs,
                                 int two_rows, int32_t a[4], int32_t sum[2])
{
    a[0] = vmladavaq_s8(a[0], u0, v0);
    sum[0] = vaddvaq_s8(sum[0], v0);
    if (two_rows) {
        a[1] = vmladavaq_s8(a[1], u0, v1);
        sum[1] = vaddvaq_s8(sum[1], v1);
    }
    if (two_inputs) {
        a[2] = vmladavaq_s8(a[2], u1, v0);
        if (two_rows) {
            a[3] = vmladavaq_s8(a[3], u1, v1);
        }
    }
}

/** acc + x_offset * (sum of w0) + sum of x0 * w0 over i < len, and the same for (x0, w1), (x1, w0),
 *  (x1, w1) where those pointers are not NULL: acc[2p + k] for (x_p, w_k). The generated kernels call
 *  it with x_offset 0 where the converter folded the offset into the bias (vmcu_tflite/kernels/offset.py):
 *  inlined, the sums of the weights are then dead and the loop is loads and VMLADAVA only. Whole
 *  vectors are loaded unpredicated (a VPST before each load would double them), the tail under VCTP. */
static inline void vmcu_mve_dots(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                 int32_t len, int32_t x_offset, int32_t *acc)
{
    int32_t a[4] = {acc[0], w1 ? acc[1] : 0, x1 ? acc[2] : 0, x1 && w1 ? acc[3] : 0};
    int32_t sum[2] = {0, 0}, i = 0;
    for (; i + 16 <= len; i += 16) {
        const int8x16_t v0 = vld1q_s8(w0 + i), u0 = vld1q_s8(x0 + i);
        vmcu_mve_step(u0, x1 ? vld1q_s8(x1 + i) : u0, v0, w1 ? vld1q_s8(w1 + i) : v0, x1 != 0, w1 != 0, a, sum);
    }
    if (i < len) {
        const mve_pred16_t p = vctp8q((uint32_t)(len - i));
        const int8x16_t v0 = vldrbq_z_s8(w0 + i, p), u0 = vldrbq_z_s8(x0 + i, p);
        vmcu_mve_step(u0, x1 ? vldrbq_z_s8(x1 + i, p) : u0, v0, w1 ? vldrbq_z_s8(w1 + i, p) : v0, x1 != 0, w1 != 0,
                      a, sum);
    }
    acc[0] = vmcu_add_wrap(a[0], (int32_t)((uint32_t)x_offset * (uint32_t)sum[0]));
    if (w1) {
        acc[1] = vmcu_add_wrap(a[1], (int32_t)((uint32_t)x_offset * (uint32_t)sum[1]));
    }
    if (x1) {
        acc[2] = vmcu_add_wrap(a[2], (int32_t)((uint32_t)x_offset * (uint32_t)sum[0]));
        if (w1) {
            acc[3] = vmcu_add_wrap(a[3], (int32_t)((uint32_t)x_offset * (uint32_t)sum[1]));
        }
    }
}
#endif

#if VMCU_MVE
/** Four weight rows by one or two inputs (x1 may be NULL): acc[4p + k] += x_offset * (sum of w_k) + sum of
 *  x_p * w_k over i < len, 8 VMLADAVA per 16 lanes of six loads. */
static inline void vmcu_mve_dots4(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                  const int8_t *w2, const int8_t *w3, int32_t len, int32_t x_offset, int32_t *acc)
{
    const int8_t *const w[4] = {w0, w1, w2, w3};
    int32_t a[8], sum[4] = {0, 0, 0, 0}, i = 0, k;
    for (k = 0; k < 8; ++k) {
        a[k] = x1 || k < 4 ? acc[k] : 0;
    }
    for (; i < len; i += 16) {
        const mve_pred16_t p = vctp8q((uint32_t)(len - i));
        const int whole = i + 16 <= len; /* no VPST where the vector is whole */
        const int8x16_t u0 = whole ? vld1q_s8(x0 + i) : vldrbq_z_s8(x0 + i, p);
        const int8x16_t u1 = !x1 ? u0 : whole ? vld1q_s8(x1 + i) : vldrbq_z_s8(x1 + i, p);
        for (k = 0; k < 4; ++k) {
            const int8x16_t v = whole ? vld1q_s8(w[k] + i) : vldrbq_z_s8(w[k] + i, p);
            a[k] = vmladavaq_s8(a[k], u0, v);
            sum[k] = vaddvaq_s8(sum[k], v);
            if (x1) {
                a[4 + k] = vmladavaq_s8(a[4 + k], u1, v);
            }
        }
    }
    for (k = 0; k < 8; ++k) {
        if (x1 || k < 4) {
            acc[k] = vmcu_add_wrap(a[k], (int32_t)((uint32_t)x_offset * (uint32_t)sum[k % 4]));
        }
    }
}
#endif

/**
 * acc + sum over i < len of (x[i] + x_offset) * w[i]; `offsets` is x_offset in both halfwords
 * (vmcu_broadcast16, computed once per kernel), used by the DSP path only.
 */
static inline int32_t vmcu_dot_s8_offsets(const int8_t *x, const int8_t *w, int32_t len, uint32_t offsets,
                                          int32_t x_offset, int32_t acc)
{
#if VMCU_MVE
    (void)offsets;
    vmcu_mve_dots(x, 0, w, 0, len, x_offset, &acc);
    return acc;
#else
    int32_t i = 0;
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t xw = vmcu_load32(x + i), ww = vmcu_load32(w + i);
        acc = vmcu_smlad(vmcu_offset02(offsets, xw), vmcu_sxtb16(ww), acc);
        acc = vmcu_smlad(vmcu_offset13(offsets, xw), vmcu_sxtb16_ror8(ww), acc);
    }
#else
    (void)offsets;
#endif
    for (; i < len; ++i) {
        acc += ((int32_t)x[i] + x_offset) * (int32_t)w[i];
    }
    return acc;
#endif
}

/* Inputs of a 16x8 layer's dot product summed in int32 before they join an int64 accumulator: each
 * product is below 2^22 in magnitude, so 256 of them stay below 2^30. */
#define VMCU_S16_CHUNK 256

/* acc + sum over i < len of x[i] * w[i] in 32 bits, wrapping: int16 inputs, int8 weights. On the DSP
 * path four at a time: the inputs' halfword pairs straight from memory (x0 x1 and x2 x3, reordered to
 * x0 x2 and x1 x3 by a PKHBT and a PKHTB), the weights widened by SXTB16 (w0 w2 and w1 w3). */
static inline int32_t vmcu_dot_s16_s8_wrap(const int16_t *x, const int8_t *w, int32_t len, int32_t acc)
{
    int32_t i = 0;
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t xa = vmcu_load32((const int8_t *)(const void *)(x + i));
        const uint32_t xb = vmcu_load32((const int8_t *)(const void *)(x + i + 2));
        const uint32_t ww = vmcu_load32(w + i);
        acc = vmcu_smlad((xa & 0xFFFFu) | (xb << 16), vmcu_sxtb16(ww), acc);
        acc = vmcu_smlad((xb & 0xFFFF0000u) | (xa >> 16), vmcu_sxtb16_ror8(ww), acc);
    }
#endif
    for (; i < len; ++i) {
        acc = (int32_t)((uint32_t)acc + (uint32_t)((int32_t)x[i] * (int32_t)w[i]));
    }
    return acc;
}

/** acc + sum over i < len of x[i] * w[i] in int64 (TFLite's 16x8 accumulator with an int64 bias). */
static inline int64_t vmcu_dot_s16_s8_64(const int16_t *x, const int8_t *w, int32_t len, int64_t acc)
{
    while (len > 0) {
        const int32_t n = len < VMCU_S16_CHUNK ? len : VMCU_S16_CHUNK;
        acc += vmcu_dot_s16_s8_wrap(x, w, n, 0);
        x += n;
        w += n;
        len -= n;
    }
    return acc;
}

/** acc + sum over i < len of x[i] * w[i] in int32 (TFLite's 16x8 accumulator with an int32 bias or none). */
static inline int32_t vmcu_dot_s16_s8_32(const int16_t *x, const int8_t *w, int32_t len, int32_t acc)
{
    return vmcu_dot_s16_s8_wrap(x, w, len, acc);
}

/* s[k] + sum over i < len of x[i] * w_k[i] in 32 bits, wrapping, for four weight rows over the same int16
 * inputs (a 16x8 GEMM's channel group): each input word pair is loaded and reordered once for the four
 * rows, each row's word widened by SXTB16 (2 instructions per row and 4 products, 6 with its SMLADs). */
VMCU_INLINE void vmcu_dot4_s16_s8_wrap(const int16_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                       const int8_t *w3, int32_t len, int32_t s[4])
{
    int32_t i = 0;
    int32_t a0 = s[0], a1 = s[1], a2 = s[2], a3 = s[3];
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t xa = vmcu_load32((const int8_t *)(const void *)(x + i));
        const uint32_t xb = vmcu_load32((const int8_t *)(const void *)(x + i + 2));
        const uint32_t x02 = (xa & 0xFFFFu) | (xb << 16), x13 = (xb & 0xFFFF0000u) | (xa >> 16);
        uint32_t ww = vmcu_load32(w0 + i);
        a0 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a0));
        ww = vmcu_load32(w1 + i);
        a1 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a1));
        ww = vmcu_load32(w2 + i);
        a2 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a2));
        ww = vmcu_load32(w3 + i);
        a3 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a3));
    }
#endif
    for (; i < len; ++i) {
        const int32_t v = x[i];
        a0 = (int32_t)((uint32_t)a0 + (uint32_t)(v * (int32_t)w0[i]));
        a1 = (int32_t)((uint32_t)a1 + (uint32_t)(v * (int32_t)w1[i]));
        a2 = (int32_t)((uint32_t)a2 + (uint32_t)(v * (int32_t)w2[i]));
        a3 = (int32_t)((uint32_t)a3 + (uint32_t)(v * (int32_t)w3[i]));
    }
    s[0] = a0;
    s[1] = a1;
    s[2] = a2;
    s[3] = a3;
}

/** acc[k] + sum over i < len of x[i] * w_k[i] in int64 for four weight rows (vmcu_dot4_s16_s8_wrap by chunks
 *  that cannot overflow int32). */
VMCU_INLINE void vmcu_dot4_s16_s8_64(const int16_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                     const int8_t *w3, int32_t len, int64_t acc[4])
{
    while (len > 0) {
        const int32_t n = len < VMCU_S16_CHUNK ? len : VMCU_S16_CHUNK;
        int32_t s[4] = {0, 0, 0, 0};
        vmcu_dot4_s16_s8_wrap(x, w0, w1, w2, w3, n, s);
        acc[0] += s[0];
        acc[1] += s[1];
        acc[2] += s[2];
        acc[3] += s[3];
        x += n;
        w0 += n;
        w1 += n;
        w2 += n;
        w3 += n;
        len -= n;
    }
}

/** The same in int32, wrapping (TFLite's 16x8 accumulator with an int32 bias). */
VMCU_INLINE void vmcu_dot4_s16_s8_32(const int16_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                     const int8_t *w3, int32_t len, int32_t acc[4])
{
    vmcu_dot4_s16_s8_wrap(x, w0, w1, w2, w3, len, acc);
}

/* vmcu_dot4_s16_s8_wrap for two weight rows (a convolution's channel pair). */
VMCU_INLINE void vmcu_dot2_s16_s8_wrap(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t len, int32_t s[2])
{
    int32_t i = 0;
    int32_t a0 = s[0], a1 = s[1];
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t xa = vmcu_load32((const int8_t *)(const void *)(x + i));
        const uint32_t xb = vmcu_load32((const int8_t *)(const void *)(x + i + 2));
        const uint32_t x02 = (xa & 0xFFFFu) | (xb << 16), x13 = (xb & 0xFFFF0000u) | (xa >> 16);
        uint32_t ww = vmcu_load32(w0 + i);
        a0 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a0));
        ww = vmcu_load32(w1 + i);
        a1 = vmcu_smlad(x13, vmcu_sxtb16_ror8(ww), vmcu_smlad(x02, vmcu_sxtb16(ww), a1));
    }
#endif
    for (; i < len; ++i) {
        const int32_t v = x[i];
        a0 = (int32_t)((uint32_t)a0 + (uint32_t)(v * (int32_t)w0[i]));
        a1 = (int32_t)((uint32_t)a1 + (uint32_t)(v * (int32_t)w1[i]));
    }
    s[0] = a0;
    s[1] = a1;
}

/** vmcu_dot2_s16_s8_wrap into int64 accumulators, by chunks that cannot overflow int32. */
VMCU_INLINE void vmcu_dot2_s16_s8_64(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t len, int64_t acc[2])
{
    while (len > 0) {
        const int32_t n = len < VMCU_S16_CHUNK ? len : VMCU_S16_CHUNK;
        int32_t s[2] = {0, 0};
        vmcu_dot2_s16_s8_wrap(x, w0, w1, n, s);
        acc[0] += s[0];
        acc[1] += s[1];
        x += n;
        w0 += n;
        w1 += n;
        len -= n;
    }
}

/** The same in int32, wrapping. */
VMCU_INLINE void vmcu_dot2_s16_s8_32(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t len, int32_t acc[2])
{
    vmcu_dot2_s16_s8_wrap(x, w0, w1, len, acc);
}

/** Two dot products over the same x: acc[k] += sum over i < len of (x[i] + x_offset) * w_k[i]; `offsets` as above. */
static inline void vmcu_dot2_s8_offsets(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t len,
                                        uint32_t offsets, int32_t x_offset, int32_t acc[2])
{
#if VMCU_MVE
    (void)offsets;
    vmcu_mve_dots(x, 0, w0, w1, len, x_offset, acc);
#else
    int32_t i = 0;
    int32_t a0 = acc[0], a1 = acc[1];
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t xw = vmcu_load32(x + i);
        const uint32_t x02 = vmcu_offset02(offsets, xw), x13 = vmcu_offset13(offsets, xw);
        const uint32_t v0 = vmcu_load32(w0 + i), v1 = vmcu_load32(w1 + i);
        a0 = vmcu_smlad(x02, vmcu_sxtb16(v0), a0);
        a0 = vmcu_smlad(x13, vmcu_sxtb16_ror8(v0), a0);
        a1 = vmcu_smlad(x02, vmcu_sxtb16(v1), a1);
        a1 = vmcu_smlad(x13, vmcu_sxtb16_ror8(v1), a1);
    }
#else
    (void)offsets;
#endif
    for (; i < len; ++i) {
        const int32_t xi = (int32_t)x[i] + x_offset;
        a0 += xi * (int32_t)w0[i];
        a1 += xi * (int32_t)w1[i];
    }
    acc[0] = a0;
    acc[1] = a1;
#endif
}

/**
 * Two inputs x0, x1 by two weight rows w0, w1 (CMSIS-NN's and the paper's 2x2 GEMM tile): acc[stride * p
 * + k] += sum over i < len of (x_p[i] + x_offset) * w_k[i] (vmcu_dot2x2_s8_offsets: stride 2). Each widened weight word serves both inputs
 * and each widened input word both rows: 20 instructions per 16 multiply-accumulates on the DSP
 * path, against 26 for two calls of vmcu_dot2_s8_offsets.
 */
static inline void vmcu_dot2x2_s8_at(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                     int32_t len, uint32_t offsets, int32_t x_offset, int32_t *acc, int32_t stride)
{
    int32_t i = 0;
    int32_t a00 = acc[0], a01 = acc[1], a10 = acc[stride], a11 = acc[stride + 1];
#if VMCU_DSP
    for (; i + 4 <= len; i += 4) {
        const uint32_t v0 = vmcu_load32(w0 + i), v1 = vmcu_load32(w1 + i);
        const uint32_t w0l = vmcu_sxtb16(v0), w0h = vmcu_sxtb16_ror8(v0);
        const uint32_t w1l = vmcu_sxtb16(v1), w1h = vmcu_sxtb16_ror8(v1);
        uint32_t xw = vmcu_load32(x0 + i);
        uint32_t xl = vmcu_offset02(offsets, xw), xh = vmcu_offset13(offsets, xw);
        a00 = vmcu_smlad(xh, w0h, vmcu_smlad(xl, w0l, a00));
        a01 = vmcu_smlad(xh, w1h, vmcu_smlad(xl, w1l, a01));
        xw = vmcu_load32(x1 + i);
        xl = vmcu_offset02(offsets, xw);
        xh = vmcu_offset13(offsets, xw);
        a10 = vmcu_smlad(xh, w0h, vmcu_smlad(xl, w0l, a10));
        a11 = vmcu_smlad(xh, w1h, vmcu_smlad(xl, w1l, a11));
    }
#else
    (void)offsets;
#endif
    for (; i < len; ++i) {
        const int32_t p0 = (int32_t)x0[i] + x_offset, p1 = (int32_t)x1[i] + x_offset;
        a00 += p0 * (int32_t)w0[i];
        a01 += p0 * (int32_t)w1[i];
        a10 += p1 * (int32_t)w0[i];
        a11 += p1 * (int32_t)w1[i];
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[stride] = a10;
    acc[stride + 1] = a11;
}

static inline void vmcu_dot2x2_s8_offsets(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                          int32_t len, uint32_t offsets, int32_t x_offset, int32_t acc[4])
{
#if VMCU_MVE
    (void)offsets;
    vmcu_mve_dots(x0, x1, w0, w1, len, x_offset, acc);
#else
    vmcu_dot2x2_s8_at(x0, x1, w0, w1, len, offsets, x_offset, acc, 2);
#endif
}

/**
 * Four weight rows w0..w3 by one or two inputs (x1 may be NULL): acc[4p + k] += sum over i < len of
 * (x_p[i] + x_offset) * w_k[i]. On Helium one pass over the rows (vmcu_mve_dots4); elsewhere two 2x2
 * tiles (or two row pairs), whose accumulators the compiler keeps in registers.
 */
static inline void vmcu_dot4_s8_offsets(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                        const int8_t *w2, const int8_t *w3, int32_t len, uint32_t offsets,
                                        int32_t x_offset, int32_t *acc)
{
#if VMCU_MVE
    (void)offsets;
    vmcu_mve_dots4(x0, x1, w0, w1, w2, w3, len, x_offset, acc);
#else
    if (x1) {
        vmcu_dot2x2_s8_at(x0, x1, w0, w1, len, offsets, x_offset, acc, 4);
        vmcu_dot2x2_s8_at(x0, x1, w2, w3, len, offsets, x_offset, acc + 2, 4);
    } else {
        vmcu_dot2_s8_offsets(x0, w0, w1, len, offsets, x_offset, acc);
        vmcu_dot2_s8_offsets(x0, w2, w3, len, offsets, x_offset, acc + 2);
    }
#endif
}

/*
 * Widened inputs (CMSIS-NN's im2col to 16 bits): a small input reused by every output channel
 * (a stem's window) is widened once, offset added, so that the dot products read 16-bit pairs
 * without SXTAB16. Each group of four inputs x0..x3 is stored as x0, x2, x1, x3: the order in
 * which SXTB16 and SXTB16 ROR 8 split a word of four weights, so one word of widened inputs
 * meets one widened word of weights in SMLAD. A tail of fewer than four stays in order.
 */

/** dst[...] = x[i] + x_offset for i < len, in the SMLAD order above (in order on the MVE path,
 *  whose vmcu_dot_s16_s8 reads them in order: the order is private to these two functions). */
VMCU_INLINE void vmcu_widen_s8(int16_t *dst, const int8_t *x, int32_t len, uint32_t offsets, int32_t x_offset)
{
#if VMCU_MVE
    int32_t i;
    (void)offsets;
    for (i = 0; i < len; i += 8) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        vstrhq_p_s16(dst + i, vaddq_n_s16(vldrbq_z_s16(x + i, p), (int16_t)x_offset), p);
    }
#else
    const int32_t groups = len - len % 4;
    int32_t i;
#if VMCU_DSP
    for (i = 0; i < groups; i += 4) {
        const uint32_t xw = vmcu_load32(x + i);
        const uint32_t lo = vmcu_offset02(offsets, xw), hi = vmcu_offset13(offsets, xw);
        memcpy(dst + i, &lo, 4);
        memcpy(dst + i + 2, &hi, 4);
    }
#else
    (void)offsets;
    for (i = 0; i < groups; i += 4) {
        dst[i] = (int16_t)(x[i] + x_offset);
        dst[i + 1] = (int16_t)(x[i + 2] + x_offset);
        dst[i + 2] = (int16_t)(x[i + 1] + x_offset);
        dst[i + 3] = (int16_t)(x[i + 3] + x_offset);
    }
#endif
    for (i = groups; i < len; ++i) {
        dst[i] = (int16_t)(x[i] + x_offset);
    }
#endif
}

/** dst[i] = x[i] + x_offset for i < len, in order: for weights the converter widened to int16 in
 *  order (vmcu_dot_s16_s16). On the DSP path a word of four inputs is split by SXTAB16 as in
 *  vmcu_widen_s8 and its halves packed back in order (PKHBT, PKHTB). */
VMCU_INLINE void vmcu_widen_s8_natural(int16_t *dst, const int8_t *x, int32_t len, uint32_t offsets,
                                         int32_t x_offset)
{
    int32_t i = 0;
#if VMCU_DSP && !VMCU_MVE
    for (; i + 4 <= len; i += 4) {
        const uint32_t xw = vmcu_load32(x + i);
        const uint32_t even = vmcu_offset02(offsets, xw), odd = vmcu_offset13(offsets, xw);
        const uint32_t first = vmcu_pack_lo(even, odd), second = vmcu_pack_hi(even, odd);
        memcpy(dst + i, &first, 4);
        memcpy(dst + i + 2, &second, 4);
    }
#else
    (void)offsets;
#endif
    for (; i < len; ++i) {
        dst[i] = (int16_t)(x[i] + x_offset);
    }
}

/*
 * The 2x2 tile over widened inputs as a function of the runtime (vmcu_dot_dsp.c), for long rows:
 * acc[2p + k] += x_p . w_k over len inputs, len a multiple of 8, x0 and x1 word-aligned. Written in
 * assembly (16 instructions per group of four, each input word loaded once); called rather than
 * inlined so that its 14 registers do not crowd the kernel around it, whose own loops GCC then spills.
 */
#if VMCU_DSP && !VMCU_DSP_EMULATED && !VMCU_MVE && defined(__GNUC__) && defined(__OPTIMIZE__)
#define VMCU_DOT_RUN 1
#define VMCU_DOT_RUN_MIN 32 /* the shortest row worth a call */
#define VMCU_DOT4_RUN_MIN 16 /* the same for two pixels by four rows */
void vmcu_dot2x2_s16_s8_run(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                            int32_t acc[4]);
/* Two pixels by four evenly spaced rows (acc[4p + k], rows w0 + k * (w1 - w0)): the 2x2 loop twice. */
void vmcu_dot2x4_s16_s8_run(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                            int32_t acc[8]);
/* One pixel by two rows (acc[k] += x0 . w_k): 11 instructions per group of four. */
void vmcu_dot1x2_s16_s8_run(const int16_t *x0, const int8_t *w0, const int8_t *w1, int32_t len, int32_t acc[2]);
/**
 * A GEMM's channels for two pixels, a pair at a time: for channel c = 2j + k of `pairs` pairs,
 * out[p * out_stride + c] = sat8(vmcu_requantize_narrow(bias[c] + x_p . w_c, multiplier[c],
 * shift[c], offset)), with x_p len widened inputs (len a multiple of 8) that vmcu_widen_s8_pair
 * interleaved in `x`, w_c = w + c * len. The 2x2 row loop above over one LDM of both pixels'
 * words per group of four inputs, then the four values requantized and stored from their
 * registers: no accumulator array, no call per channel group. The generated GEMMs call it
 * (lower_gemm.gemm_run) for layers whose requantization takes the narrow form; the field order is
 * the assembly's.
 */
typedef struct {
    const int16_t *x;           /* both pixels, interleaved by groups of four (vmcu_widen_s8_pair) */
    const int8_t *w;            /* the first pair's two rows, len apart: w_c = w + c * len */
    int32_t len;
    const void *bias;           /* int16_t (..._b16_run) or int32_t (..._b32_run) */
    const int32_t *multiplier;  /* m2 = 2m - 2^32 */
    const int8_t *shift;        /* r1 = r - 1 */
    int32_t offset2;            /* 2 * offset + 1 */
    int8_t *out;
    int32_t out_stride;
    int32_t pairs;
} vmcu_gemm_tile;
void vmcu_gemm2x2_narrow_b16_run(const vmcu_gemm_tile *tile);
void vmcu_gemm2x2_narrow_b32_run(const vmcu_gemm_tile *tile);
/* The same for rows of exactly k = 8, 16, 24, 32, 40, 48, 64, 80 or 96 inputs
 * (lower_gemm.UNROLLED_ROWS), len = k, pairs >= 1: each row unrolled, the pair's pointers in
 * registers (vmcu_dot_dsp.c). */
#define VMCU_GEMM2X2_K_DECLARE(k)                                                                     \
    void vmcu_gemm2x2_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm2x2_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);
VMCU_GEMM2X2_K_DECLARE(8)
VMCU_GEMM2X2_K_DECLARE(16)
VMCU_GEMM2X2_K_DECLARE(24)
VMCU_GEMM2X2_K_DECLARE(32)
VMCU_GEMM2X2_K_DECLARE(40)
VMCU_GEMM2X2_K_DECLARE(48)
VMCU_GEMM2X2_K_DECLARE(64)
VMCU_GEMM2X2_K_DECLARE(80)
VMCU_GEMM2X2_K_DECLARE(96)
#undef VMCU_GEMM2X2_K_DECLARE

/**
 * Two pixels' len inputs (len a multiple of 4) widened as vmcu_widen_s8 does, interleaved by groups
 * of four: group g of pixel p at dst + 8g + 4p, so that one LDM of four words loads both pixels'
 * group (vmcu_gemm_tile). The generated GEMMs widen a tile of two pixels this way only where every
 * dot product over it is the assembly's (lower_gemm.gemm_run).
 */
static inline void vmcu_widen_s8_pair(int16_t *dst, const int8_t *x0, const int8_t *x1, int32_t len,
                                      uint32_t offsets)
{
    int32_t i;
    for (i = 0; i < len; i += 4) {
        const uint32_t a = vmcu_load32(x0 + i), b = vmcu_load32(x1 + i);
        const uint32_t words[4] = {vmcu_offset02(offsets, a), vmcu_offset13(offsets, a), vmcu_offset02(offsets, b),
                                   vmcu_offset13(offsets, b)};
        memcpy(dst + 2 * i, words, sizeof words);
    }
}
#else
#define VMCU_DOT_RUN 0
#endif

/** A 2x2 tile's sums back to acc[stride * p + k], those of a missing input or row left alone. */
static inline void vmcu_store_acc2x2(int32_t *acc, int32_t stride, int two_inputs, int two_rows, int32_t a00,
                                     int32_t a01, int32_t a10, int32_t a11)
{
    acc[0] = a00;
    if (two_rows) {
        acc[1] = a01;
    }
    if (two_inputs) {
        acc[stride] = a10;
        if (two_rows) {
            acc[stride + 1] = a11;
        }
    }
}

/**
 * acc[stride * p + k] += sum over i < len of x_p[i] * w_k[i], for inputs x_p widened by vmcu_widen_s8
 * (offset included) and weight rows w_k; x1 and w1 may be NULL (one input, one row). Called with
 * constant NULLs, the compiler keeps only the products asked for: with both pairs, 18
 * instructions per 16 multiply-accumulates (two words of weights widened once, four of inputs), or
 * 16 in vmcu_dot2x2_s16_s8_run for rows of VMCU_DOT_RUN_MIN inputs or more.
 */
VMCU_INLINE void vmcu_dot_s16_s8_at(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                      int32_t start, int32_t len, int32_t *acc, int32_t stride)
{
    const int32_t groups = len - len % 4;
    int32_t i;
    int32_t a00 = acc[0], a01 = w1 ? acc[1] : 0, a10 = x1 ? acc[stride] : 0, a11 = x1 && w1 ? acc[stride + 1] : 0;
#if VMCU_MVE
    /* 8 lanes: the inputs as widened (in order), the weights widened by VLDRB.S16 */
    (void)groups;
    for (i = 0; i < len; i += 8) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        const int16x8_t v0 = vldrbq_z_s16(w0 + i, p), u0 = vldrhq_z_s16(x0 + i, p);
        a00 = vmladavaq_s16(a00, u0, v0);
        if (w1) {
            const int16x8_t v1 = vldrbq_z_s16(w1 + i, p);
            a01 = vmladavaq_s16(a01, u0, v1);
            if (x1) {
                a11 = vmladavaq_s16(a11, vldrhq_z_s16(x1 + i, p), v1);
            }
        }
        if (x1) {
            a10 = vmladavaq_s16(a10, vldrhq_z_s16(x1 + i, p), v0);
        }
    }
    i = len;
    (void)start;
#else
    i = start;
#if VMCU_DOT_RUN
    if (start == 0 && x1 && w1 && groups >= VMCU_DOT_RUN_MIN) {
        int32_t a[4] = {a00, a01, a10, a11};
        i = groups & ~7;
        vmcu_dot2x2_s16_s8_run(x0, x1, w0, w1, i, a);
        a00 = a[0];
        a01 = a[1];
        a10 = a[2];
        a11 = a[3];
    } else if (start == 0 && !x1 && w1 && groups >= VMCU_DOT_RUN_MIN) {
        int32_t a[2] = {a00, a01};
        i = groups & ~7;
        vmcu_dot1x2_s16_s8_run(x0, w0, w1, i, a);
        a00 = a[0];
        a01 = a[1];
    }
#endif
    for (; i < groups; i += 4) {
#if VMCU_DSP
        const uint32_t v0 = vmcu_load32(w0 + i), v1 = w1 ? vmcu_load32(w1 + i) : 0u;
        const uint32_t w0l = vmcu_sxtb16(v0), w0h = vmcu_sxtb16_ror8(v0);
        const uint32_t w1l = vmcu_sxtb16(v1), w1h = vmcu_sxtb16_ror8(v1);
        uint32_t xl, xh;
        memcpy(&xl, x0 + i, 4);
        memcpy(&xh, x0 + i + 2, 4);
        a00 = vmcu_smlad(xh, w0h, vmcu_smlad(xl, w0l, a00));
        if (w1) {
            a01 = vmcu_smlad(xh, w1h, vmcu_smlad(xl, w1l, a01));
        }
        if (x1) {
            memcpy(&xl, x1 + i, 4);
            memcpy(&xh, x1 + i + 2, 4);
            a10 = vmcu_smlad(xh, w0h, vmcu_smlad(xl, w0l, a10));
            if (w1) {
                a11 = vmcu_smlad(xh, w1h, vmcu_smlad(xl, w1l, a11));
            }
        }
#else
        static const int8_t order[4] = {0, 2, 1, 3};
        for (int32_t j = 0; j < 4; ++j) {
            a00 += x0[i + j] * w0[i + order[j]];
            if (w1) {
                a01 += x0[i + j] * w1[i + order[j]];
            }
            if (x1) {
                a10 += x1[i + j] * w0[i + order[j]];
                if (w1) {
                    a11 += x1[i + j] * w1[i + order[j]];
                }
            }
        }
#endif
    }
    i = groups;
#endif
    for (; i < len; ++i) {
        a00 += x0[i] * w0[i];
        if (w1) {
            a01 += x0[i] * w1[i];
        }
        if (x1) {
            a10 += x1[i] * w0[i];
            if (w1) {
                a11 += x1[i] * w1[i];
            }
        }
    }
    vmcu_store_acc2x2(acc, stride, x1 != 0, w1 != 0, a00, a01, a10, a11);
}

/**
 * acc[2p + k] += sum over i < len of x_p[i] * w_k[i], for inputs widened in order
 * (vmcu_widen_s8_natural, offset included) and weight rows the converter widened to int16; x1 and
 * w1 may be NULL. On the DSP path a word of an input (two values) meets a word of a row in one
 * SMLAD: with both pairs, 8 instructions per 8 multiply-accumulates and no SXTB16.
 */
VMCU_INLINE void vmcu_dot_s16_s16(const int16_t *x0, const int16_t *x1, const int16_t *w0, const int16_t *w1,
                                    int32_t len, int32_t *acc)
{
    int32_t a00 = acc[0], a01 = w1 ? acc[1] : 0, a10 = x1 ? acc[2] : 0, a11 = x1 && w1 ? acc[3] : 0;
    int32_t i = 0;
#if VMCU_DSP
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 32 /* a window's row is a constant: straight-line SMLADs, no loop counter or pointer updates */
#endif
    for (; i + 2 <= len; i += 2) {
        uint32_t u0, v0, u1, v1 = 0u;
        memcpy(&u0, x0 + i, 4);
        memcpy(&v0, w0 + i, 4);
        if (w1) {
            memcpy(&v1, w1 + i, 4);
        }
        a00 = vmcu_smlad(u0, v0, a00);
        if (w1) {
            a01 = vmcu_smlad(u0, v1, a01);
        }
        if (x1) {
            memcpy(&u1, x1 + i, 4);
            a10 = vmcu_smlad(u1, v0, a10);
            if (w1) {
                a11 = vmcu_smlad(u1, v1, a11);
            }
        }
    }
#endif
    for (; i < len; ++i) { /* the portable path (the DSP path's rows are whole words) */
        const int32_t v0 = w0[i], v1 = w1 ? w1[i] : 0;
        a00 += x0[i] * v0;
        a01 += x0[i] * v1;
        if (x1) {
            a10 += x1[i] * v0;
            a11 += x1[i] * v1;
        }
    }
    vmcu_store_acc2x2(acc, 2, x1 != 0, w1 != 0, a00, a01, a10, a11);
}

/* vmcu_dot_s16_s16's sums for int16 activations (a 16x8 layer's gathered window, its values as they are):
 * each chunk summed from 0 in int32, exact (each product below 2^22 in magnitude, VMCU_S16_CHUNK of them
 * below 2^30), into s[2p + k]. */
VMCU_INLINE void vmcu_dot_s16_s16_chunk(const int16_t *x0, const int16_t *x1, const int16_t *w0, const int16_t *w1,
                                        int32_t at, int32_t n, int32_t s[4])
{
    s[0] = 0;
    s[1] = 0;
    s[2] = 0;
    s[3] = 0;
    vmcu_dot_s16_s16(x0 + at, x1 ? x1 + at : 0, w0 + at, w1 ? w1 + at : 0, n, s);
}

#if VMCU_MVE
/** p[0..n) = 0 for an int16 buffer (a 16x8 layer's gathered window before its copies): eight halfwords per
 *  VSTRH, the tail under VCTP.16 (no byte past p + n written). */
VMCU_INLINE void vmcu_zero16_mve(int16_t *p, int32_t n)
{
    const int16x8_t zero = vdupq_n_s16(0);
    int32_t i = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 8
#endif
    for (; i + 8 <= n; i += 8) {
        vst1q_s16(p + i, zero);
    }
    if (i < n) {
        vstrhq_p_s16(p + i, zero, vctp16q((uint32_t)(n - i)));
    }
}

/* One vector of vmcu_dot_s16_s16_64's Helium path: eight products of each (input, row) pair added to the
 * int64 accumulators by VMLALDAVA.S16 (exact: the sum is kept in 64 bits). */
VMCU_INLINE void vmcu_mve_step_s16(int16x8_t u0, int16x8_t u1, int16x8_t v0, int16x8_t v1, int two_inputs,
                                   int two_rows, int64_t a[4])
{
    a[0] = vmlaldavaq_s16(a[0], u0, v0);
    if (two_rows) {
        a[1] = vmlaldavaq_s16(a[1], u0, v1);
    }
    if (two_inputs) {
        a[2] = vmlaldavaq_s16(a[2], u1, v0);
        if (two_rows) {
            a[3] = vmlaldavaq_s16(a[3], u1, v1);
        }
    }
}
#endif

/** acc[2p + k] + sum over i < len of x_p[i] * w_k[i] in int64 (TFLite's 16x8 accumulator with an int64
 *  bias), for int16 inputs and int16-widened weight rows; x1 and w1 may be NULL. On Helium eight taps
 *  per VMLALDAVA.S16 straight into the int64 sums (whole vectors unpredicated, the tail under VCTP.16:
 *  its inactive lanes load as 0 and read no memory); elsewhere int32 chunks of SMLADs. */
VMCU_INLINE void vmcu_dot_s16_s16_64(const int16_t *x0, const int16_t *x1, const int16_t *w0, const int16_t *w1,
                                     int32_t len, int64_t *acc)
{
#if VMCU_MVE
    int64_t a[4] = {acc[0], w1 ? acc[1] : 0, x1 ? acc[2] : 0, x1 && w1 ? acc[3] : 0};
    /* four pointers stepped by 8 (loads with writeback: no address arithmetic in the loop) */
    const int16_t *p0 = x0, *p1 = x1 ? x1 : x0, *q0 = w0, *q1 = w1 ? w1 : w0;
    int32_t i = 0;
    for (; i + 8 <= len; i += 8) {
        const int16x8_t u0 = vld1q_s16(p0), v0 = vld1q_s16(q0);
        const int16x8_t u1 = x1 ? vld1q_s16(p1) : u0, v1 = w1 ? vld1q_s16(q1) : v0;
        p0 += 8;
        p1 += 8;
        q0 += 8;
        q1 += 8;
        vmcu_mve_step_s16(u0, u1, v0, v1, x1 != 0, w1 != 0, a);
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        const int16x8_t u0 = vldrhq_z_s16(p0, p), v0 = vldrhq_z_s16(q0, p);
        vmcu_mve_step_s16(u0, x1 ? vldrhq_z_s16(p1, p) : u0, v0, w1 ? vldrhq_z_s16(q1, p) : v0, x1 != 0, w1 != 0, a);
    }
    acc[0] = a[0];
    if (w1) {
        acc[1] = a[1];
    }
    if (x1) {
        acc[2] = a[2];
        if (w1) {
            acc[3] = a[3];
        }
    }
#else
    int32_t at;
    for (at = 0; at < len; at += VMCU_S16_CHUNK) {
        int32_t s[4];
        vmcu_dot_s16_s16_chunk(x0, x1, w0, w1, at, len - at < VMCU_S16_CHUNK ? len - at : VMCU_S16_CHUNK, s);
        acc[0] += s[0];
        if (w1) {
            acc[1] += s[1];
        }
        if (x1) {
            acc[2] += s[2];
            if (w1) {
                acc[3] += s[3];
            }
        }
    }
#endif
}

/** The same in int32, wrapping (TFLite's 16x8 accumulator with an int32 bias). */
VMCU_INLINE void vmcu_dot_s16_s16_32(const int16_t *x0, const int16_t *x1, const int16_t *w0, const int16_t *w1,
                                     int32_t len, int32_t *acc)
{
    int32_t at;
    for (at = 0; at < len; at += VMCU_S16_CHUNK) {
        int32_t s[4];
        int32_t k;
        vmcu_dot_s16_s16_chunk(x0, x1, w0, w1, at, len - at < VMCU_S16_CHUNK ? len - at : VMCU_S16_CHUNK, s);
        for (k = 0; k < 4; ++k) {
            if ((k % 2 == 0 || w1) && (k < 2 || x1)) {
                acc[k] = (int32_t)((uint32_t)acc[k] + (uint32_t)s[k]);
            }
        }
    }
}

/** vmcu_dot_s16_s8_at with input 1's accumulators right after input 0's: acc[2p + k]. */
VMCU_INLINE void vmcu_dot_s16_s8(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                   int32_t len, int32_t *acc)
{
    vmcu_dot_s16_s8_at(x0, x1, w0, w1, 0, len, acc, 2);
}

/** vmcu_dot_s16_s8 for four weight rows (acc[4p + k]), as two pairs of rows: on the DSP path, for two
 *  inputs and evenly spaced rows (a GEMM's filter), one call of vmcu_dot2x4_s16_s8_run for both. */
VMCU_INLINE void vmcu_dot4_s16_s8(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                    const int8_t *w2, const int8_t *w3, int32_t len, int32_t *acc)
{
    int32_t start = 0;
#if VMCU_DOT_RUN
    if (x1 && len - len % 4 >= VMCU_DOT4_RUN_MIN && w2 - w1 == w1 - w0 && w3 - w2 == w1 - w0) {
        start = (len - len % 4) & ~7;
        vmcu_dot2x4_s16_s8_run(x0, x1, w0, w1, start, acc);
    }
#endif
    vmcu_dot_s16_s8_at(x0, x1, w0, w1, start, len, acc, 4);
    vmcu_dot_s16_s8_at(x0, x1, w2, w3, start, len, acc + 2, 4);
}

/**
 * acc + sum over i < len of (x[i] + x_offset) * w[i]: one channel's kernel row over a row of a
 * one-channel plane (x contiguous), the taps w held in registers as int32. Four taps per word on
 * the DSP path, the last word overlapping the one before it with the repeated lanes weighted 0,
 * so no byte outside x[0, len) is read. With len a constant the paired taps are loop invariants.
 */
static inline int32_t vmcu_dot_row_s8(const int8_t *x, const int32_t *w, int32_t len, uint32_t offsets,
                                      int32_t x_offset, int32_t acc)
{
    int32_t i = 0;
#if VMCU_DSP
    if (len >= 4) {
        for (; i + 4 <= len; i += 4) {
            const uint32_t xw = vmcu_load32(x + i);
            acc = vmcu_smlad(vmcu_sxtab16(offsets, xw), vmcu_pack16(w[i], w[i + 2]), acc);
            acc = vmcu_smlad(vmcu_sxtab16_ror8(offsets, xw), vmcu_pack16(w[i + 1], w[i + 3]), acc);
        }
        if (i < len) { /* lanes j < skip of the word at len - 4 were counted already */
            const int32_t s = len - 4, skip = i - s;
            const uint32_t xw = vmcu_load32(x + s);
            const int32_t w0 = skip > 0 ? 0 : w[s], w1 = skip > 1 ? 0 : w[s + 1], w2 = skip > 2 ? 0 : w[s + 2];
            acc = vmcu_smlad(vmcu_sxtab16(offsets, xw), vmcu_pack16(w0, w2), acc);
            acc = vmcu_smlad(vmcu_sxtab16_ror8(offsets, xw), vmcu_pack16(w1, w[s + 3]), acc);
            i = len;
        }
    }
#else
    (void)offsets;
#endif
    for (; i < len; ++i) {
        acc += ((int32_t)x[i] + x_offset) * w[i];
    }
    return acc;
}

/**
 * A kernel row of two adjacent output pixels of a one-channel plane (stride 1): acc0[0] + sum over
 * i < len of (x[i] + x_offset) * w[i], and acc1[0] + the same over x[i + 1], reading x[0, len].
 * On the DSP path a row of 3 or 7 taps (len + 1 inputs: whole words) reads each word once for both
 * pixels: with e its bytes 0 and 2 and o its bytes 1 and 3 (SXTAB16 and its rotation), pixel 0 adds
 * e.(w0, w2) + o.(w1, w3) and pixel 1 o.(w0, w2) + e.(w-1, w1) crossed (SMLADX), the taps outside
 * the row weighted 0: four SMLADs for eight products.
 */
VMCU_INLINE void vmcu_dot_row2_s8(const int8_t *x, const int32_t *w, int32_t len, uint32_t offsets,
                                  int32_t x_offset, int32_t *acc0, int32_t *acc1)
{
    int32_t sum0 = acc0[0], sum1 = acc1[0];
#if VMCU_DSP
    if ((len + 1) % 4 == 0) {
        for (int32_t i = 0; i < len; i += 4) {
            const uint32_t xw = vmcu_load32(x + i);
            const uint32_t even = vmcu_sxtab16(offsets, xw), odd = vmcu_sxtab16_ror8(offsets, xw);
            const uint32_t w02 = vmcu_pack16(w[i], w[i + 2]);
            sum0 = vmcu_smlad(even, w02, sum0);
            sum0 = vmcu_smlad(odd, vmcu_pack16(w[i + 1], i + 3 < len ? w[i + 3] : 0), sum0);
            sum1 = vmcu_smlad(odd, w02, sum1);
            sum1 = vmcu_smladx(even, vmcu_pack16(w[i + 1], i > 0 ? w[i - 1] : 0), sum1);
        }
        acc0[0] = sum0;
        acc1[0] = sum1;
        return;
    }
#else
    (void)offsets;
#endif
    for (int32_t i = 0; i < len; ++i) {
        sum0 += ((int32_t)x[i] + x_offset) * w[i];
        sum1 += ((int32_t)x[i + 1] + x_offset) * w[i];
    }
    acc0[0] = sum0;
    acc1[0] = sum1;
}

#if VMCU_MVE
/** Four channels, one tap: acc[k] + (x[k] + x_offset) * w[k], k < 4, as four int32 lanes (VLDRB.S32
 *  widens the bytes on the way in; the generated kernels keep acc in a vector register). */
static inline int32x4_t vmcu_mac4_s8_mve(const int8_t *x, const int8_t *w, int32_t x_offset, int32x4_t acc)
{
    return vaddq_s32(acc, vmulq_s32(vaddq_n_s32(vldrbq_s32(x), x_offset), vldrbq_s32(w)));
}

/* A vector of four values held in core registers: two VMOVs of two lanes each (GCC builds the vector
 * through the stack otherwise). */
static inline int32x4_t vmcu_lanes4(int32_t a0, int32_t a1, int32_t a2, int32_t a3)
{
#if defined(__GNUC__)
    int32x4_t v;
    __asm__("vmov %q0[2], %q0[0], %1, %3\n\tvmov %q0[3], %q0[1], %2, %4" : "=&w"(v) : "r"(a0), "r"(a1), "r"(a2),
            "r"(a3));
    return v;
#else
    const int32x4_t v = {a0, a1, a2, a3};
    return v;
#endif
}

/* The requantization of four lanes, before the clamp, in either form the converter can prove
 * (requant.py; `shifted` is a literal at every call, so the other form compiles away):
 * - narrow (vmcu_requantize_narrow): VQRDMULH(x, m) is SMMULR(2x, m) for |x| < 2^30, and VSHL by
 *   `shift` = -r1 (the table's r - 1, negated) the right shift by r1;
 * - shifted (vmcu_requantize_shifted): x shifted left by max(shift, 0) first, which the form has
 *   proved stays below 2^30, and the doubled product shifted right by max(-shift, 0): `shift` is
 *   the channel's shift.
 * The scalar forms' operations on four lanes, so the same bits. */
static inline int32x4_t vmcu_requantize_unclamped_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift,
                                                      int32_t offset, int32_t shifted)
{
    int32x4_t v;
    if (shifted) {
        const int32x4_t zero = vdupq_n_s32(0);
        v = vqrdmulhq_s32(vshlq_s32(x, vmaxq_s32(shift, zero)), multiplier);
        v = vshlq_s32(vaddq_s32(vaddq_s32(v, v), vshrq_n_s32(v, 31)), vminq_s32(shift, zero));
    } else {
        v = vqrdmulhq_s32(x, multiplier);
        v = vshlq_s32(vaddq_s32(v, vshrq_n_s32(v, 31)), shift);
    }
    return vshrq_n_s32(vaddq_n_s32(v, 2 * offset + 1), 1);
}

/* A narrow table's multiplier m2 = 2m - 2^32 back to m (requant.tables): a logical shift right. */
static inline int32x4_t vmcu_multiplier_mve(int32x4_t multiplier, int32_t shifted)
{
    return shifted ? multiplier : vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(multiplier), 1));
}

/** The same from the channels' constants as the tables hold them, clamped. */
static inline int32x4_t vmcu_requantize_lanes_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift, int32_t offset,
                                                  int32_t act_min, int32_t act_max, int32_t shifted)
{
    const int32x4_t v = vmcu_requantize_unclamped_mve(x, vmcu_multiplier_mve(multiplier, shifted),
                                                      shifted ? shift : vnegq_s32(shift), offset, shifted);
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}

/** dst[k] = the requantized, clamped acc[k] of channel k, for the first `count` (1 to 4) lanes of a
 *  depthwise group; the other lanes neither read constants nor write. */
static inline void vmcu_requantize4_mve(int32x4_t acc, const int32_t *multiplier, const int8_t *shift, int32_t offset,
                                        int32_t act_min, int32_t act_max, int8_t *dst, int32_t count, int32_t shifted)
{
    if (count >= 4) { /* no VPST around the loads and the store */
        vstrbq_s32(dst, vmcu_requantize_lanes_mve(acc, vld1q_s32(multiplier), vldrbq_s32(shift), offset, act_min,
                                                  act_max, shifted));
    } else {
        const mve_pred16_t p = vctp32q((uint32_t)count);
        vstrbq_p_s32(dst, vmcu_requantize_lanes_mve(acc, vldrwq_z_s32(multiplier, p), vldrbq_z_s32(shift, p), offset,
                                                    act_min, act_max, shifted), p);
    }
}

/** Eight depthwise channels (vmcu_mac8_s8_mve's even and odd vectors) requantized and clamped into
 *  dst[0..count). A whole group reads its constants as vectors split even and odd (VLD2 for the
 *  multipliers, VMOVLB/VMOVLT for the shifts); a group's tail gathers only the channels it has, so no
 *  constant past the layer's last channel is read. The two results narrow back into channel order
 *  with saturation (VQMOVNB, VQMOVNT) and are clamped as eight 16-bit lanes: the bounds are int8, so
 *  saturating to int16 first changes no clamped value. */
static inline void vmcu_requantize8_mve(int32x4_t even, int32x4_t odd, const int32_t *multiplier, const int8_t *shift,
                                        int32_t offset, int32_t act_min, int32_t act_max, int8_t *dst, int32_t count,
                                        int32_t shifted)
{
    int32x4_t me, mo, se, so;
    if (count >= 8) {
        const int32x4x2_t m = vld2q_s32(multiplier);
        const int16x8_t table = vldrbq_s16(shift);
        const int16x8_t s16 = shifted ? table : vnegq_s16(table); /* VSHL's amount: the shift, or -r1 */
        me = m.val[0];
        mo = m.val[1];
        se = vmovlbq_s16(s16);
        so = vmovltq_s16(s16);
    } else {
        const uint32x4_t words = vidupq_n_u32(0u, 8), bytes = vidupq_n_u32(0u, 2); /* channels 0, 2, 4, 6 */
        const mve_pred16_t pe = vctp32q((uint32_t)(count + 1) / 2u), po = vctp32q((uint32_t)count / 2u);
        me = vldrwq_gather_offset_z_s32(multiplier, words, pe);
        mo = vldrwq_gather_offset_z_s32(multiplier + 1, words, po);
        se = vldrbq_gather_offset_z_s32(shift, bytes, pe);
        so = vldrbq_gather_offset_z_s32(shift + 1, bytes, po);
        se = shifted ? se : vnegq_s32(se);
        so = shifted ? so : vnegq_s32(so);
    }
    const int32x4_t e = vmcu_requantize_unclamped_mve(even, vmcu_multiplier_mve(me, shifted), se, offset, shifted);
    const int32x4_t o = vmcu_requantize_unclamped_mve(odd, vmcu_multiplier_mve(mo, shifted), so, offset, shifted);
    int16x8_t both = vqmovntq_s32(vqmovnbq_s32(vuninitializedq_s16(), e), o);
    both = vminq_s16(vmaxq_s16(both, vdupq_n_s16((int16_t)act_min)), vdupq_n_s16((int16_t)act_max));
    if (count >= 8) {
        vstrbq_s16(dst, both);
    } else {
        vstrbq_p_s16(dst, both, vctp16q((uint32_t)count));
    }
}

/** A GEMM's four channels of one pixel (acc[k], channel k from the constants' start), the first `count`. */
static inline void vmcu_requantize_row4_mve(const int32_t acc[4], const int32_t *multiplier, const int8_t *shift,
                                            int32_t offset, int32_t act_min, int32_t act_max, int8_t *dst,
                                            int32_t count, int32_t shifted)
{
    const int32x4_t x = vmcu_lanes4(acc[0], acc[1], acc[2], acc[3]);
    vmcu_requantize4_mve(x, multiplier, shift, offset, act_min, act_max, dst, count, shifted);
}

/** A GEMM's 2x2 tile: acc[2t + k] (pixel t, channel k of a pair) requantized and clamped into
 *  dst[t * dst_stride + k]: the pair's constants gathered twice, the four bytes scattered. */
static inline void vmcu_requantize2x2_mve(const int32_t acc[4], const int32_t *multiplier, const int8_t *shift,
                                          int32_t offset, int32_t act_min, int32_t act_max, int8_t *dst,
                                          int32_t dst_stride, int32_t shifted)
{
    const uint32x4_t words = {0u, 4u, 0u, 4u}, bytes = {0u, 1u, 0u, 1u};
    const uint32x4_t at = {0u, 1u, (uint32_t)dst_stride, (uint32_t)dst_stride + 1u};
    const int32x4_t x = vmcu_lanes4(acc[0], acc[1], acc[2], acc[3]);
    const int32x4_t v = vmcu_requantize_lanes_mve(x, vldrwq_gather_offset_s32(multiplier, words),
                                                  vldrbq_gather_offset_s32(shift, bytes), offset, act_min, act_max,
                                                  shifted);
    vstrbq_scatter_offset_s32(dst, at, v);
}

/* A 16x8 layer's 64-bit requantization (vmcu_requantize64) on four lanes, clamped, where the converter
 * proved its accumulators int32 and its shifts in [-17, -1] (requant.wide_lanes): the multiplier rounded
 * to m16 as the scalar form rounds it (VQADD saturates exactly where m + 2^15 passes INT32_MAX, giving
 * 0x7FFF), shifted left by 32 - t = 17 + shift, and VRMULH(x, m16 2^(32-t)) = (x m16 + 2^(t-1)) >> t. */
static inline int32x4_t vmcu_requantize64_lanes_mve(int32x4_t x, int32x4_t multiplier, int32x4_t shift,
                                                    int32_t offset, int32_t act_min, int32_t act_max)
{
    const int32x4_t m16 = vshrq_n_s32(vqaddq_n_s32(multiplier, 0x8000), 16);
    const int32x4_t v = vaddq_n_s32(vrmulhq_s32(x, vshlq_s32(m16, vaddq_n_s32(shift, 17))), offset);
    return vminq_s32(vmaxq_s32(v, vdupq_n_s32(act_min)), vdupq_n_s32(act_max));
}

/** A 16x8 layer's 2x2 tile (acc[2t + k]: pixel t, channel k of a pair; int64 sums the converter proved
 *  int32) requantized and clamped into dst[t * dst_stride + k]: the pair's constants gathered twice, the
 *  four halfwords scattered. */
static inline void vmcu_requantize64_2x2_mve(const int64_t acc[4], const int32_t *multiplier, const int8_t *shift,
                                             int32_t offset, int32_t act_min, int32_t act_max, int16_t *dst,
                                             int32_t dst_stride)
{
    const uint32x4_t words = {0u, 4u, 0u, 4u}, bytes = {0u, 1u, 0u, 1u};
    const uint32x4_t at = {0u, 1u, (uint32_t)dst_stride, (uint32_t)dst_stride + 1u};
    const int32x4_t x = vmcu_lanes4((int32_t)acc[0], (int32_t)acc[1], (int32_t)acc[2], (int32_t)acc[3]);
    const int32x4_t v = vmcu_requantize64_lanes_mve(x, vldrwq_gather_offset_s32(multiplier, words),
                                                    vldrbq_gather_offset_s32(shift, bytes), offset, act_min, act_max);
    vstrhq_scatter_shifted_offset_s32(dst, at, v);
}

/** The same for a tile of one channel (acc[0] and acc[2]: pixels 0 and 1) into dst[0] and dst[dst_stride]:
 *  the channel's constants in every lane, two lanes stored. */
static inline void vmcu_requantize64_2x1_mve(const int64_t acc[4], const int32_t *multiplier, const int8_t *shift,
                                             int32_t offset, int32_t act_min, int32_t act_max, int16_t *dst,
                                             int32_t dst_stride)
{
    const uint32x4_t at = {0u, (uint32_t)dst_stride, 0u, 0u};
    const int32x4_t x = vmcu_lanes4((int32_t)acc[0], (int32_t)acc[2], 0, 0);
    const int32x4_t v = vmcu_requantize64_lanes_mve(x, vdupq_n_s32(multiplier[0]), vdupq_n_s32(shift[0]), offset,
                                                    act_min, act_max);
    vstrhq_scatter_shifted_offset_p_s32(dst, at, v, vctp32q(2u));
}

/** A 16x8 GEMM's four channels of one pixel (acc[k], channel k from the constants' start; int64 sums the
 *  converter proved int32), the first `count` (1 to 4) requantized and clamped into dst[k]. */
static inline void vmcu_requantize64_row4_mve(const int64_t acc[4], const int32_t *multiplier, const int8_t *shift,
                                              int32_t offset, int32_t act_min, int32_t act_max, int16_t *dst,
                                              int32_t count)
{
    const int32x4_t x = vmcu_lanes4((int32_t)acc[0], (int32_t)acc[1], (int32_t)acc[2], (int32_t)acc[3]);
    if (count >= 4) { /* no VPST around the loads and the store */
        vstrhq_s32(dst, vmcu_requantize64_lanes_mve(x, vld1q_s32(multiplier), vldrbq_s32(shift), offset, act_min,
                                                    act_max));
    } else {
        const mve_pred16_t p = vctp32q((uint32_t)count);
        vstrhq_p_s32(dst, vmcu_requantize64_lanes_mve(x, vldrwq_z_s32(multiplier, p), vldrbq_z_s32(shift, p), offset,
                                                      act_min, act_max), p);
    }
}
#endif

#if VMCU_MVE
/* Eight depthwise channels in two vectors: `even` holds channels 0, 2, 4, 6 of the group, `odd` channels
 * 1, 3, 5, 7 (the lanes VMULLB and VMULLT widen). */

/** One tap of eight channels (the first `lanes`): even/odd += (x[k] + x_offset) * w[k]. The inputs and
 *  taps load as 16-bit lanes (x + x_offset fits: at most 255 in magnitude), their products widen to
 *  32 bits exactly; lanes past `lanes` load as 0 and add 0. */
static inline void vmcu_mac8_s8_mve(const int8_t *x, const int8_t *w, int32_t x_offset, int32_t lanes,
                                    int32x4_t *even, int32x4_t *odd)
{
    int16x8_t xv, wv;
    if (lanes >= 8) {
        xv = vldrbq_s16(x);
        wv = vldrbq_s16(w);
    } else {
        const mve_pred16_t p = vctp16q((uint32_t)lanes);
        xv = vldrbq_z_s16(x, p);
        wv = vldrbq_z_s16(w, p);
    }
    xv = vaddq_n_s16(xv, (int16_t)x_offset);
    int32x4_t e = vaddq_s32(*even, vmullbq_int_s16(xv, wv)), o = vaddq_s32(*odd, vmulltq_int_s16(xv, wv));
    /* The sums pinned tap by tap: left free, GCC computes every product of a kernel row first and
     * spills them to the stack (a row of seven taps took about 110 instructions instead of 72). */
    __asm__ volatile("" : "+w"(e), "+w"(o));
    *even = e;
    *odd = o;
}

/** The biases of eight channels (those past `count` 0) into the even and odd vectors: an int16 table. */
static inline void vmcu_bias8_s16_mve(const int16_t *bias, int32_t count, int32x4_t *even, int32x4_t *odd)
{
    if (count >= 8) { /* eight halfwords, widened even and odd */
        const int16x8_t b = vldrhq_s16(bias);
        *even = vmovlbq_s16(b);
        *odd = vmovltq_s16(b);
    } else {
        const uint32x4_t at = vidupq_n_u32(0u, 4); /* bytes of channels 0, 2, 4, 6: 0, 4, 8, 12 */
        *even = vldrhq_gather_offset_z_s32(bias, at, vctp32q((uint32_t)(count + 1) / 2u));
        *odd = vldrhq_gather_offset_z_s32(bias + 1, at, vctp32q((uint32_t)count / 2u));
    }
}

/** The same for an int32 table: VLD2 splits eight words into the even and the odd ones. */
static inline void vmcu_bias8_s32_mve(const int32_t *bias, int32_t count, int32x4_t *even, int32x4_t *odd)
{
    if (count >= 8) {
        const int32x4x2_t both = vld2q_s32(bias);
        *even = both.val[0];
        *odd = both.val[1];
    } else {
        const uint32x4_t at = vidupq_n_u32(0u, 8);
        *even = vldrwq_gather_offset_z_s32(bias, at, vctp32q((uint32_t)(count + 1) / 2u));
        *odd = vldrwq_gather_offset_z_s32(bias + 1, at, vctp32q((uint32_t)count / 2u));
    }
}

/** acc[k] += x[k] for k < len, four int32 sums per vector (a global average pool's sums), the tail
 *  under VCTP. */
static inline void vmcu_accumulate_s8_mve(int32_t *acc, const int8_t *x, int32_t len)
{
    int32_t i;
    for (i = 0; i < len; i += 4) {
        const mve_pred16_t p = vctp32q((uint32_t)(len - i));
        vstrwq_p_s32(acc + i, vaddq_s32(vldrwq_z_s32(acc + i, p), vldrbq_z_s32(x + i, p)), p);
    }
}

/** acc[0..7] in channel order from the even and odd vectors (VST2 interleaves them). */
static inline void vmcu_store8_mve(int32_t *acc, int32x4_t even, int32x4_t odd)
{
    const int32x4x2_t both = {{even, odd}};
    vst2q_s32(acc, both);
}
#endif

#if VMCU_DSP
/** Four channels, one tap: acc[k] += (byte k of xw + x_offset) * (byte k of ww), k < 4. */
static inline void vmcu_mac4_s8(uint32_t xw, uint32_t ww, uint32_t offsets, int32_t acc[4])
{
    const uint32_t x02 = vmcu_sxtab16(offsets, xw), x13 = vmcu_sxtab16_ror8(offsets, xw);
    const uint32_t w02 = vmcu_sxtb16(ww), w13 = vmcu_sxtb16_ror8(ww);
    acc[0] = vmcu_smlabb(x02, w02, acc[0]);
    acc[1] = vmcu_smlabb(x13, w13, acc[1]);
    acc[2] = vmcu_smlatt(x02, w02, acc[2]);
    acc[3] = vmcu_smlatt(x13, w13, acc[3]);
}

/**
 * Half a kernel row of a depthwise group of four channels for two adjacent output pixels whose windows
 * are `shift` (1 or 2: the stride) columns apart (DotLanesPair): for the channels k = half and half + 2
 * (the halfwords SXTAB16 makes of a word, or of its rotation by 8), acc[k] += (x[t xs + k] + x_offset)
 * * w[t ws + k] and acc1[k] += (x[(t + shift) xs + k] + x_offset) * w[t ws + k], t < taps. Pixel 1's tap
 * t - shift and pixel 0's tap t read the same column, so each column's word is loaded and widened
 * once for both, and each tap's weights once: per column two loads, two extensions and four
 * multiply-accumulates. The four accumulators, a column's halfwords and the last taps' weights take
 * at most eleven registers with the pointers and offsets: called for one half over every row of the
 * window, the accumulators stay in registers; the whole group's eight would not, and GCC would store
 * and load them at every row.
 */
VMCU_INLINE void vmcu_mac2x2_row_s8(const int8_t *x, const int8_t *w, int32_t taps, int32_t shift, int32_t xs,
                                    int32_t ws, uint32_t offsets, int32_t half, int32_t acc[4], int32_t acc1[4])
{
    int32_t p0 = acc[half], p2 = acc[half + 2], q0 = acc1[half], q2 = acc1[half + 2];
    uint32_t w1 = 0u, w2 = 0u; /* the widened weights of the taps one and two columns back */
    int32_t t;
    for (t = 0; t < taps + shift; ++t) {
        const uint32_t xw = vmcu_load32(x + t * xs);
        const uint32_t xv = half ? vmcu_offset13(offsets, xw) : vmcu_offset02(offsets, xw);
        uint32_t wt = 0u;
        if (t >= shift) { /* pixel 1's tap t - shift */
            const uint32_t back = shift == 1 ? w1 : w2;
            q0 = vmcu_smlabb(xv, back, q0);
            q2 = vmcu_smlatt(xv, back, q2);
        }
        if (t < taps) {
            const uint32_t ww = vmcu_load32(w + t * ws);
            wt = half ? vmcu_sxtb16_ror8(ww) : vmcu_sxtb16(ww);
            p0 = vmcu_smlabb(xv, wt, p0);
            p2 = vmcu_smlatt(xv, wt, p2);
        }
        w2 = w1;
        w1 = wt;
    }
    acc[half] = p0;
    acc[half + 2] = p2;
    acc1[half] = q0;
    acc1[half + 2] = q2;
}
#endif

/**
 * vmcu_requantize(x, m, shift) + offset for |x| < 2^30, a right shift r = -shift >= 1 and a
 * multiplier m in [2^30, 2^31): the generated kernels call it where the converter has proved all
 * three for every accumulator and channel of the layer (vmcu_tflite/kernels/requant.py), whose
 * tables then hold m2 = 2m - 2^32 and r1 = r - 1 (requant.tables).
 *
 * SaturatingRoundingDoublingHighMul(x, m) = floor((x * m + 2^30) / 2^31) = floor((2x * m + 2^31)
 * / 2^32), which never saturates (m != INT32_MIN), and 2x * m = x * 2^32 + x * m2: one SMMLAR
 * with x as its accumulator. RoundingDivideByPOT(v, r) = floor((w + 2^(r-1)) / 2^r) with
 * w = v - [v < 0] (= v + (v >> 31)), which is floor((floor(w / 2^(r-1)) + 1) / 2); adding
 * 2 * offset before the last halving adds exactly offset. So: SMMLAR, an add, a shift by r1, an
 * add of 2 * offset + 1 (a loop invariant) and a shift by one, which SSAT takes as its operand's
 * shift where the clamp is a saturation. |v| < 2^30: nothing overflows.
 */
static inline int32_t vmcu_requantize_narrow(int32_t x, int32_t m2, int32_t r1, int32_t offset)
{
#if VMCU_DSP
    const int32_t v = vmcu_smmlar(x, m2, x);
#else
    const int32_t v = (int32_t)(((int64_t)x * (int64_t)((uint32_t)m2 >> 1) + ((int64_t)1 << 30)) >> 31);
#endif
    return (((v + (v >> 31)) >> r1) + (2 * offset + 1)) >> 1;
}

/**
 * vmcu_requantize(x, multiplier, shift) + offset for a shift of either sign, where the converter
 * has proved |x| * 2^max(shift, 0) < 2^30 (vmcu_tflite/kernels/requant.py). With l = max(shift, 0)
 * and r = max(-shift, 0): SaturatingRoundingDoublingHighMul(x << l, m) is SMMULR(x << (l + 1), m)
 * as in vmcu_requantize_narrow, and RoundingDivideByPOT(v, r) = RoundingDivideByPOT(2v, r + 1)
 * (the same quotient) = floor((floor((2v - [v < 0]) / 2^r) + 1) / 2), which for r = 0 is v.
 */
static inline int32_t vmcu_requantize_shifted(int32_t x, int32_t multiplier, int32_t shift, int32_t offset)
{
    const int32_t left = shift > 0 ? shift : 0, right = left - shift;
#if VMCU_DSP
    const int32_t v = vmcu_smmulr((int32_t)((uint32_t)x << (left + 1)), multiplier);
#else
    const int32_t v = (int32_t)(((int64_t)x * ((int64_t)1 << left) * (int64_t)multiplier + ((int64_t)1 << 30)) >> 31);
#endif
    return (((v * 2 + (v >> 31)) >> right) + (2 * offset + 1)) >> 1;
}

#if VMCU_MVE
/* vmcu_requantize_shifted lane by lane for one multiplier and a shift <= 0 (what vmcu_add_s8_run's fast
 * form has checked): SMMULR(2x, m) is VQRDMULH for |x| < 2^30, then the same shifts and adds. */
static inline int32x4_t vmcu_requantize_shifted_mve(int32x4_t x, int32_t multiplier, int32_t shift, int32_t offset)
{
    const int32x4_t v = vqrdmulhq_n_s32(x, multiplier);
    const int32x4_t w = vshlq_s32(vaddq_s32(vaddq_s32(v, v), vshrq_n_s32(v, 31)), vdupq_n_s32(shift));
    return vshrq_n_s32(vaddq_n_s32(w, 2 * offset + 1), 1);
}
#endif

/**
 * out[i] = ADD(a[i * a_step], b[i * b_step]) for i < len (vmcu_add_pair), the params read once.
 * TFLite's ADD shifts both offset inputs left by 20 and scales them with multipliers below one
 * (the larger-scale input by exactly one half: multiplier 2^30, shift 0): with no shift above 0
 * and a left shift of at most 21, |(x + offset) << left| <= 255 * 2^21 and each scaled input is
 * no larger, so the inputs and their sum stay below 2^30, which is what vmcu_requantize_shifted
 * needs (and vmcu_requantize_narrow, for a normalized output multiplier and a right shift); other
 * parameters take the general form. Where the converter wrote tables of each input's scaled values
 * (vmcu_binary_arith), an element costs two loads before the sum instead of two scalings.
 */
static inline void vmcu_add_s8_run(const vmcu_binary_arith *p, const int8_t *a, int32_t a_step, const int8_t *b,
                                   int32_t b_step, int8_t *out, int32_t len)
{
    const int32_t o1 = p->input1_offset, o2 = p->input2_offset, left = p->left_shift;
    const int32_t m1 = p->input1_multiplier, s1 = p->input1_shift, m2 = p->input2_multiplier, s2 = p->input2_shift;
    const int32_t mo = p->output_multiplier, so = p->output_shift, oo = p->output_offset;
    const int32_t lo = p->act_min, hi = p->act_max;
    int32_t i;
    if (s1 > 0 || s2 > 0 || so > 0 || left < 0 || left > 21) {
        for (i = 0; i < len; ++i) {
            out[i] = vmcu_add_pair(p, a[i * a_step], b[i * b_step]);
        }
        return;
    }
    i = 0;
#if VMCU_MVE
    if (a_step == 1 && b_step == 1) { /* four elements per vector, the tail under VCTP */
        for (; i < len; i += 4) {
            const mve_pred16_t p4 = vctp32q((uint32_t)(len - i));
            const int32x4_t x1 = vmcu_requantize_shifted_mve(
                vshlq_s32(vaddq_n_s32(vldrbq_z_s32(a + i, p4), o1), vdupq_n_s32(left)), m1, s1, 0);
            const int32x4_t x2 = vmcu_requantize_shifted_mve(
                vshlq_s32(vaddq_n_s32(vldrbq_z_s32(b + i, p4), o2), vdupq_n_s32(left)), m2, s2, 0);
            const int32x4_t sum = vmcu_requantize_shifted_mve(vaddq_s32(x1, x2), mo, so, oo);
            vstrbq_p_s32(out + i, vminq_s32(vmaxq_s32(sum, vdupq_n_s32(lo)), vdupq_n_s32(hi)), p4);
        }
        return;
    }
#endif
    if (p->input1_scaled && p->input2_scaled) { /* the converter's tables of each input's scaled values */
        const int32_t *t1 = p->input1_scaled + 128, *t2 = p->input2_scaled + 128;
        if (so <= -1 && mo >= (int32_t)0x40000000) { /* the narrow form: the sum is below 2^30 (above) */
            const int32_t mo2 = (int32_t)((uint32_t)mo * 2u), so1 = -so - 1;
            for (; i < len; ++i) {
                out[i] = (int8_t)vmcu_clamp(vmcu_requantize_narrow(t1[a[i * a_step]] + t2[b[i * b_step]], mo2, so1, oo),
                                            lo, hi);
            }
            return;
        }
        for (; i < len; ++i) {
            out[i] = (int8_t)vmcu_clamp(vmcu_requantize_shifted(t1[a[i * a_step]] + t2[b[i * b_step]], mo, so, oo), lo, hi);
        }
        return;
    }
    for (; i < len; ++i) {
        const int32_t x1 = vmcu_requantize_shifted((int32_t)((uint32_t)(a[i * a_step] + o1) << left), m1, s1, 0);
        const int32_t x2 = vmcu_requantize_shifted((int32_t)((uint32_t)(b[i * b_step] + o2) << left), m2, s2, 0);
        out[i] = (int8_t)vmcu_clamp(vmcu_requantize_shifted(x1 + x2, mo, so, oo), lo, hi);
    }
}

#if VMCU_MVE
/* 16x8 dot products on Helium: eight int16 inputs per VLDRH.S16 and eight weights widened by VLDRB.S16,
 * the eight products added to a 64-bit accumulator by one VMLALDAVA.S16 (exactly TFLite Micro's int64
 * sum) or to a 32-bit one by VMLADAVA.S16 (wrapping like the _32 forms above; the four-row int64
 * form sums VMCU_S16_CHUNK products in int32 at a time, its int64 accumulators' registers otherwise
 * spilled). Whole vectors first, then one tail of predicated, zeroing loads: the lanes past `len` add
 * nothing. The inputs are halfword aligned (vmcu_span16 or an int16_t copy). */
VMCU_INLINE int64_t vmcu_dot_s16_s8_64_mve(const int16_t *x, const int8_t *w, int32_t len, int64_t acc)
{
    int32_t i = 0;
    for (; i + 8 <= len; i += 8) { /* whole vectors: no VCTP, no VPST */
        acc = vmlaldavaq_s16(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        acc = vmlaldavaq_s16(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}

VMCU_INLINE int32_t vmcu_dot_s16_s8_32_mve(const int16_t *x, const int8_t *w, int32_t len, int32_t acc)
{
    int32_t i = 0;
    for (; i + 8 <= len; i += 8) {
        acc = vmladavaq_s16(acc, vldrhq_s16(x + i), vldrbq_s16(w + i));
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        acc = vmladavaq_s16(acc, vldrhq_z_s16(x + i, p), vldrbq_z_s16(w + i, p));
    }
    return acc;
}

/** vmcu_dot_s16_s8_32_mve for two weight rows over the same inputs (each input vector loaded once). */
VMCU_INLINE void vmcu_dot2_s16_s8_32_mve(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t len,
                                         int32_t acc[2])
{
    int32_t a0 = acc[0], a1 = acc[1], i = 0;
    for (; i + 8 <= len; i += 8) {
        const int16x8_t v = vldrhq_s16(x + i);
        a0 = vmladavaq_s16(a0, v, vldrbq_s16(w0 + i));
        a1 = vmladavaq_s16(a1, v, vldrbq_s16(w1 + i));
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        const int16x8_t v = vldrhq_z_s16(x + i, p);
        a0 = vmladavaq_s16(a0, v, vldrbq_z_s16(w0 + i, p));
        a1 = vmladavaq_s16(a1, v, vldrbq_z_s16(w1 + i, p));
    }
    acc[0] = a0;
    acc[1] = a1;
}

/** vmcu_dot_s16_s8_64_mve for two weight rows over the same inputs (each input vector loaded once). */
VMCU_INLINE void vmcu_dot2_s16_s8_64_mve(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t len,
                                         int64_t acc[2])
{
    int64_t a0 = acc[0], a1 = acc[1];
    int32_t i = 0;
    for (; i + 8 <= len; i += 8) {
        const int16x8_t v = vldrhq_s16(x + i);
        a0 = vmlaldavaq_s16(a0, v, vldrbq_s16(w0 + i));
        a1 = vmlaldavaq_s16(a1, v, vldrbq_s16(w1 + i));
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        const int16x8_t v = vldrhq_z_s16(x + i, p);
        a0 = vmlaldavaq_s16(a0, v, vldrbq_z_s16(w0 + i, p));
        a1 = vmlaldavaq_s16(a1, v, vldrbq_z_s16(w1 + i, p));
    }
    acc[0] = a0;
    acc[1] = a1;
}

/** The same for four weight rows (a 16x8 GEMM's channel group), in int32. */
VMCU_INLINE void vmcu_dot4_s16_s8_32_mve(const int16_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                         const int8_t *w3, int32_t len, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3], i = 0;
    for (; i + 8 <= len; i += 8) {
        const int16x8_t v = vldrhq_s16(x + i);
        a0 = vmladavaq_s16(a0, v, vldrbq_s16(w0 + i));
        a1 = vmladavaq_s16(a1, v, vldrbq_s16(w1 + i));
        a2 = vmladavaq_s16(a2, v, vldrbq_s16(w2 + i));
        a3 = vmladavaq_s16(a3, v, vldrbq_s16(w3 + i));
    }
    if (i < len) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i));
        const int16x8_t v = vldrhq_z_s16(x + i, p);
        a0 = vmladavaq_s16(a0, v, vldrbq_z_s16(w0 + i, p));
        a1 = vmladavaq_s16(a1, v, vldrbq_z_s16(w1 + i, p));
        a2 = vmladavaq_s16(a2, v, vldrbq_z_s16(w2 + i, p));
        a3 = vmladavaq_s16(a3, v, vldrbq_z_s16(w3 + i, p));
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

VMCU_INLINE void vmcu_dot4_s16_s8_64_mve(const int16_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                         const int8_t *w3, int32_t len, int64_t acc[4])
{
    while (len > 0) {
        const int32_t n = len < VMCU_S16_CHUNK ? len : VMCU_S16_CHUNK;
        int32_t s[4] = {0, 0, 0, 0};
        vmcu_dot4_s16_s8_32_mve(x, w0, w1, w2, w3, n, s);
        acc[0] += s[0];
        acc[1] += s[1];
        acc[2] += s[2];
        acc[3] += s[3];
        x += n;
        w0 += n;
        w1 += n;
        w2 += n;
        w3 += n;
        len -= n;
    }
}

/* A 16x8 depthwise group's four lanes: the products x[l] * w[l] (below 2^22 in magnitude) added to the
 * int32 partial sums `acc`, which vmcu_flush4_s64_mve adds to the int64 accumulators before more than
 * 511 of them could overflow (the lowering counts them). */
VMCU_INLINE int32x4_t vmcu_mac4_s16_s8_mve(const int16_t *x, const int8_t *w, int32x4_t acc)
{
    return vaddq_s32(acc, vmulq_s32(vldrhq_s32(x), vldrbq_s32(w)));
}

/** The same for the first `lanes` lanes (the others load as 0 and add nothing). */
VMCU_INLINE int32x4_t vmcu_mac4_s16_s8_z_mve(const int16_t *x, const int8_t *w, int32_t lanes, int32x4_t acc)
{
    const mve_pred16_t p = vctp32q((uint32_t)lanes);
    return vaddq_s32(acc, vmulq_s32(vldrhq_z_s32(x, p), vldrbq_z_s32(w, p)));
}

/** acc[l] += the partial sum of lane l, for the four lanes; the partial sums back to 0. */
VMCU_INLINE void vmcu_flush4_s64_mve(int64_t acc[4], int32x4_t *partial)
{
    acc[0] += vgetq_lane_s32(*partial, 0);
    acc[1] += vgetq_lane_s32(*partial, 1);
    acc[2] += vgetq_lane_s32(*partial, 2);
    acc[3] += vgetq_lane_s32(*partial, 3);
    *partial = vdupq_n_s32(0);
}
#endif /* VMCU_MVE: 16x8 dot products */

#endif /* VMCU_DSP_H */
