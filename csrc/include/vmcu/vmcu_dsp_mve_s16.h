/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * Helium's (MVE) 16x8 dot products and depthwise lanes (VMLALDAVA.S16 / VMLADAVA.S16 / VMUL into int32
 * partial sums). Compiled only where VMCU_MVE.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_MVE_S16_H
#define VMCU_DSP_MVE_S16_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
#endif

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

#endif /* VMCU_DSP_MVE_S16_H */
