/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * The Cortex-M DSP extension's instructions the helpers use (SXTB16, SXTAB16, SMLAD, SMLABB, SMMLAR,
 * ...), through ACLE on a DSP core, or as C emulations of the same bits under VMCU_EMULATE_DSP (the
 * DSP path on the host), with the word loads and packs around them. Compiled only where VMCU_DSP.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_ARM_H
#define VMCU_DSP_ARM_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
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

/* The two words at *w (word-aligned), *w then stepped past them: one LDRD with post-increment. Written out on
 * GCC-compatible compilers, which otherwise keep each word of a small local array in a stack slot of its
 * own and load it alone. */
static inline void vmcu_load_words(const int32_t **w, uint32_t *lo, uint32_t *hi)
{
#if !VMCU_DSP_EMULATED && defined(__GNUC__)
    uint32_t a, b;
    const int32_t *at = *w;
    __asm__("ldrd %0, %1, [%2], #8" : "=r"(a), "=r"(b), "+r"(at) : "m"(*(const int32_t(*)[2])*w));
    *w = at;
    *lo = a;
    *hi = b;
#else
    *lo = (uint32_t)(*w)[0];
    *hi = (uint32_t)(*w)[1];
    *w += 2;
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

#endif /* VMCU_DSP_ARM_H */
