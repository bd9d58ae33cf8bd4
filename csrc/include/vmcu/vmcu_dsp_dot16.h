/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * Dot products over inputs widened in order (weights the converter widened to int16, 16x8 layers'
 * gathered windows) and over rows of int32 taps (depthwise rows), each with its per-core bodies under #if.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_DOT16_H
#define VMCU_DSP_DOT16_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
#endif

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

/** vmcu_dot_s16_s8 for four weight rows (acc[4p + k]): vmcu_dot4_s16_s8_rows over rows apart. */
VMCU_INLINE void vmcu_dot4_s16_s8(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                    const int8_t *w2, const int8_t *w3, int32_t len, int32_t *acc)
{
    vmcu_dot4_s16_s8_rows(x0, x1, w0, w1, w2, w3, len, acc, 0);
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

/** Tap j of a depthwise filter: int8, or int16 lane-ordered (vmcu_lane_order). */
static inline int32_t vmcu_filter_tap(const void *filter, int32_t j, int lanes16)
{
    return lanes16 ? ((const int16_t *)filter)[vmcu_lane_order(j)] : ((const int8_t *)filter)[j];
}

/**
 * Two channels' k_h x k_w taps (k_w odd) into `taps` for vmcu_dot_cols_s8: channel l's tap i at
 * filter[first + l + i * stride] (a depthwise filter, int8 or lane-ordered int16 as `lanes16` says,
 * `stride` its channels). On the DSP path kernel row r is 2 (k_w + 1) words from taps + 2 r (k_w + 1)
 * on, channel 0's k_w + 1 then channel 1's: for each word of a two-channel plane's row (columns 2j and
 * 2j + 1 of both channels), the channel's taps (w[2j], w[2j + 1]) for a pixel whose window starts at
 * column 0 of the word, then (w[2j - 1], w[2j]) for the next pixel, whose window starts a column
 * further, the taps outside the row 0. Otherwise the taps in order, channel 1's k_h * k_w after
 * channel 0's.
 */
static inline void vmcu_column_taps(int32_t *taps, const void *filter, int32_t first, int32_t stride, int32_t k_h,
                                    int32_t k_w, int lanes16)
{
#if VMCU_DSP
    for (int32_t r = 0; r < k_h; ++r, first += k_w * stride) {
        for (int32_t l = 0; l < 2; ++l) {
            for (int32_t t = 0; t <= k_w; t += 2, taps += 2) {
                const int32_t before = t > 0 ? vmcu_filter_tap(filter, first + l + (t - 1) * stride, lanes16) : 0;
                const int32_t at = vmcu_filter_tap(filter, first + l + t * stride, lanes16);
                const int32_t after = t + 1 < k_w ? vmcu_filter_tap(filter, first + l + (t + 1) * stride, lanes16) : 0;
                taps[0] = (int32_t)vmcu_pack16(at, after);
                taps[1] = (int32_t)vmcu_pack16(before, at);
            }
        }
    }
#else
    for (int32_t l = 0; l < 2; ++l) {
        for (int32_t i = 0; i < k_h * k_w; ++i) {
            taps[l * k_h * k_w + i] = vmcu_filter_tap(filter, first + l + i * stride, lanes16);
        }
    }
#endif
}

/** vmcu_column_taps over an int8 filter from `filter` on. */
static inline void vmcu_column_taps_s8(int32_t *taps, const int8_t *filter, int32_t stride, int32_t k_h, int32_t k_w)
{
    vmcu_column_taps(taps, filter, 0, stride, k_h, k_w, 0);
}

/** vmcu_column_taps over a lane-ordered filter, from its tap `first` on. */
static inline void vmcu_column_taps_lanes16(int32_t *taps, const int16_t *filter, int32_t first, int32_t stride,
                                            int32_t k_h, int32_t k_w)
{
    vmcu_column_taps(taps, filter, first, stride, k_h, k_w, 1);
}

#if VMCU_DSP
/* One channel's kernel row (k_w odd) over `pixels` (2 or 4) adjacent output pixels: `w` that channel's
 * tap pairs of the row (vmcu_column_taps_s8), `x` the row from the first pixel's window, `rotate` the
 * channel (bytes 1 and 3 of each word, not 0 and 2). Each pair of taps is one LDRD for a pixel pair,
 * and with four pixels each word's column pair serves the first pair at its window's word j and the
 * second pair at word j - 1: seven instructions for eight products. */
VMCU_INLINE void vmcu_dot_cols_lane_s8(const int8_t *x, const int32_t *w, int32_t k_w, uint32_t offsets,
                                       int rotate, int32_t pixels, int32_t *acc)
{
    int32_t s0 = acc[0], s1 = acc[2], s2 = pixels > 2 ? acc[4] : 0, s3 = pixels > 2 ? acc[6] : 0;
    uint32_t c = rotate ? vmcu_sxtab16_ror8(offsets, vmcu_load32(x)) : vmcu_sxtab16(offsets, vmcu_load32(x));
    for (int32_t t = 0; t <= k_w; t += 2) {
        uint32_t a, b;
        vmcu_load_words(&w, &a, &b);
        s0 = vmcu_smlad(c, a, s0);
        s1 = vmcu_smlad(c, b, s1);
        if (pixels > 2 || t + 2 <= k_w) { /* the next word: the second pair's, or this pair's next */
            const uint32_t xw = vmcu_load32(x + 2 * t + 4);
            const uint32_t next = rotate ? vmcu_sxtab16_ror8(offsets, xw) : vmcu_sxtab16(offsets, xw);
            if (pixels > 2) {
                s2 = vmcu_smlad(next, a, s2);
                s3 = vmcu_smlad(next, b, s3);
            }
            c = next;
        }
    }
    acc[0] = s0;
    acc[2] = s1;
    if (pixels > 2) {
        acc[4] = s2;
        acc[6] = s3;
    }
}
#endif

/**
 * A kernel row of k_w taps (odd, a constant) over a row of a two-channel plane (pixel i's channel l at
 * x[2i + l]) for `pixels` adjacent output pixels (1, 2 or 4, a constant), the row's taps from tap `tap`
 * of vmcu_column_taps_s8's layout (a multiple of k_w): acc[2p + l] += sum over i < k_w of
 * (x[2(p + i) + l] + x_offset) * w_l[tap + i]. On the DSP path the row is read in words, each two
 * columns of both channels: SXTAB16 and its rotation make a column pair of each channel, which meets
 * a pixel's pair of taps in one SMLAD; x[0, 2 (k_w + pixels - 1)) rounded up to whole words is read.
 */
VMCU_INLINE void vmcu_dot_cols_s8(const int8_t *x, const int32_t *taps, int32_t tap, int32_t k_w, int32_t pitch,
                                  uint32_t offsets, int32_t x_offset, int32_t *acc, int32_t pixels)
{
#if VMCU_DSP
    const int32_t *w = taps + tap / k_w * 2 * (k_w + 1);
    (void)pitch;
    (void)x_offset;
    if (pixels == 1) { /* the first pixel's taps of each pair */
        int32_t a0 = acc[0], a1 = acc[1];
        for (int32_t t = 0; t <= k_w; t += 2) {
            const uint32_t xw = vmcu_load32(x + 2 * t);
            a0 = vmcu_smlad(vmcu_sxtab16(offsets, xw), (uint32_t)w[t], a0);
            a1 = vmcu_smlad(vmcu_sxtab16_ror8(offsets, xw), (uint32_t)w[k_w + 1 + t], a1);
        }
        acc[0] = a0;
        acc[1] = a1;
        return;
    }
    /* a channel at a time: both channels' pixels would take twice the accumulators and column pairs */
    vmcu_dot_cols_lane_s8(x, w, k_w, offsets, 0, pixels, acc);
#if defined(__GNUC__)
    /* the second channel loads the words again: given the same pointer, GCC keeps both channels'
     * column pairs of every word at once and spills */
    __asm__("" : "+r"(x));
#endif
    vmcu_dot_cols_lane_s8(x, w + k_w + 1, k_w, offsets, 1, pixels, acc + 1);
#else
    /* a pixel pair at a time (one pixel alone), its four sums in registers, each tap loaded once for both */
    (void)offsets;
    for (int32_t p = 0; p < pixels; p += 2, x += 4, acc += 4) {
        int32_t a0 = acc[0], a1 = acc[1], b0 = pixels > 1 ? acc[2] : 0, b1 = pixels > 1 ? acc[3] : 0;
        for (int32_t i = 0; i < k_w; ++i) {
            const int32_t w0 = taps[tap + i], w1 = taps[tap + pitch + i];
            a0 += ((int32_t)x[2 * i] + x_offset) * w0;
            a1 += ((int32_t)x[2 * i + 1] + x_offset) * w1;
            if (pixels > 1) {
                b0 += ((int32_t)x[2 * i + 2] + x_offset) * w0;
                b1 += ((int32_t)x[2 * i + 3] + x_offset) * w1;
            }
        }
        acc[0] = a0;
        acc[1] = a1;
        if (pixels > 1) {
            acc[2] = b0;
            acc[3] = b1;
        }
    }
#endif
}

#endif /* VMCU_DSP_DOT16_H */
