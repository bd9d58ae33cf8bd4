/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * The dot products over int8 rows and over 16x8 layers' int16 inputs, and the widening of int8 inputs
 * to int16: each helper with its Helium, DSP and portable bodies under #if, the same sums on every path.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_DOT_H
#define VMCU_DSP_DOT_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
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

/*
 * The portable forms of vmcu_dot4_s8_offsets (cores without the DSP extension: RISC-V RV32IMAC, the
 * Cortex-M3; not the M0, below). With no SIMD, a multiply-accumulate costs at least a weight load, a
 * multiply and an add (a multiply-add on the M3); what is left to save is around them. So the four rows go in one
 * pass, each input byte loaded and its offset added once for all four (two passes over row pairs did
 * that twice), and four inputs per iteration share one step of the five pointers and the loop test:
 * on RV32IMAC 58 instructions per 16 multiply-accumulates, against 80 for the two passes. The sums are
 * the scalar loop's, in another order: the same int32 values.
 */
static inline void vmcu_dot4_s8_scalar(const int8_t *x, const int8_t *w0, const int8_t *w1, const int8_t *w2,
                                       const int8_t *w3, int32_t len, int32_t x_offset, int32_t acc[4])
{
    int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    const int8_t *const end = x + (len & ~3);
    while (x != end) {
        const int32_t p0 = x[0] + x_offset, p1 = x[1] + x_offset, p2 = x[2] + x_offset, p3 = x[3] + x_offset;
        a0 += p0 * w0[0] + p1 * w0[1] + p2 * w0[2] + p3 * w0[3];
        a1 += p0 * w1[0] + p1 * w1[1] + p2 * w1[2] + p3 * w1[3];
        a2 += p0 * w2[0] + p1 * w2[1] + p2 * w2[2] + p3 * w2[3];
        a3 += p0 * w3[0] + p1 * w3[1] + p2 * w3[2] + p3 * w3[3];
        x += 4;
        w0 += 4;
        w1 += 4;
        w2 += 4;
        w3 += 4;
    }
    for (int32_t i = 0; i < (len & 3); ++i) {
        const int32_t p = x[i] + x_offset;
        a0 += p * w0[i];
        a1 += p * w1[i];
        a2 += p * w2[i];
        a3 += p * w3[i];
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/* The same for two inputs x0, x1 (acc[4p + k]): each weight loaded once for both inputs, each input once
 * for the four rows, one position per iteration (the eight sums and six pointers leave no registers
 * for unrolling). */
static inline void vmcu_dot4x2_s8_scalar(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                         const int8_t *w2, const int8_t *w3, int32_t len, int32_t x_offset,
                                         int32_t acc[8])
{
    int32_t a00 = acc[0], a01 = acc[1], a02 = acc[2], a03 = acc[3];
    int32_t a10 = acc[4], a11 = acc[5], a12 = acc[6], a13 = acc[7];
    for (int32_t i = 0; i < len; ++i) {
        const int32_t p0 = x0[i] + x_offset, p1 = x1[i] + x_offset;
        const int32_t v0 = w0[i], v1 = w1[i], v2 = w2[i], v3 = w3[i];
        a00 += p0 * v0;
        a01 += p0 * v1;
        a02 += p0 * v2;
        a03 += p0 * v3;
        a10 += p1 * v0;
        a11 += p1 * v1;
        a12 += p1 * v2;
        a13 += p1 * v3;
    }
    acc[0] = a00;
    acc[1] = a01;
    acc[2] = a02;
    acc[3] = a03;
    acc[4] = a10;
    acc[5] = a11;
    acc[6] = a12;
    acc[7] = a13;
}

/**
 * Four weight rows w0..w3 by one or two inputs (x1 may be NULL): acc[4p + k] += sum over i < len of
 * (x_p[i] + x_offset) * w_k[i]. On Helium one pass over the rows (vmcu_mve_dots4); on the DSP path (and
 * Thumb-1's) two 2x2 tiles (or two row pairs), whose accumulators the compiler keeps in registers; in
 * other portable C one pass of scalar products (vmcu_dot4_s8_scalar, vmcu_dot4x2_s8_scalar).
 */
static inline void vmcu_dot4_s8_offsets(const int8_t *x0, const int8_t *x1, const int8_t *w0, const int8_t *w1,
                                        const int8_t *w2, const int8_t *w3, int32_t len, uint32_t offsets,
                                        int32_t x_offset, int32_t *acc)
{
#if VMCU_MVE
    (void)offsets;
    vmcu_mve_dots4(x0, x1, w0, w1, w2, w3, len, x_offset, acc);
#elif VMCU_DSP || (defined(__thumb__) && !defined(__thumb2__))
    /* also Thumb-1 (Cortex-M0): its eight low registers cannot hold a four-row pass, which spills */
    if (x1) {
        vmcu_dot2x2_s8_at(x0, x1, w0, w1, len, offsets, x_offset, acc, 4);
        vmcu_dot2x2_s8_at(x0, x1, w2, w3, len, offsets, x_offset, acc + 2, 4);
    } else {
        vmcu_dot2_s8_offsets(x0, w0, w1, len, offsets, x_offset, acc);
        vmcu_dot2_s8_offsets(x0, w2, w3, len, offsets, x_offset, acc + 2);
    }
#else
    (void)offsets;
    if (x1) {
        vmcu_dot4x2_s8_scalar(x0, x1, w0, w1, w2, w3, len, x_offset, acc);
    } else {
        vmcu_dot4_s8_scalar(x0, w0, w1, w2, w3, len, x_offset, acc);
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

#endif /* VMCU_DSP_DOT_H */
