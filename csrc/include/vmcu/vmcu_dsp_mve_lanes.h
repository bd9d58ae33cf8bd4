/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * Helium's (MVE) lanes: depthwise accumulators of four or eight channels in vector registers, their
 * biases, their requantization as vectors (and a tile's rows, a 2x2 tile's), the generated kernels'
 * vector forms. Compiled only where VMCU_MVE.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_MVE_LANES_H
#define VMCU_DSP_MVE_LANES_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
#endif

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
/** vmcu_mac8x2_row_s8_mve's kernel row for a group of four channels (the first `lanes`), one int32 lane
 *  each: for t < taps, acc0 += (x[t xs + k] + x_offset) * w[t ws + k] and acc1 += (x[(t + shift) xs + k]
 *  + x_offset) * w[t ws + k], each column loaded and offset once for both pixels, each tap's weights
 *  kept for pixel 1 `shift` columns later. Lanes past `lanes` load as 0 and add 0. */
VMCU_INLINE void vmcu_mac4x2_row_s8_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t shift, int32_t xs,
                                        int32_t ws, int32_t x_offset, int32_t lanes, int32x4_t *acc0,
                                        int32x4_t *acc1)
{
    const mve_pred16_t p = vctp32q((uint32_t)(lanes < 4 ? lanes : 4));
    int32x4_t a0 = *acc0, a1 = *acc1;
    int32x4_t w1 = vdupq_n_s32(0), w2 = w1; /* the weights of the taps one and two columns back */
    int32_t t;
    for (t = 0; t < taps + shift; ++t) {
        const int32x4_t xv = vaddq_n_s32(lanes >= 4 ? vldrbq_s32(x + t * xs) : vldrbq_z_s32(x + t * xs, p), x_offset);
        int32x4_t wv = w1;
        if (t < taps) {
            wv = lanes >= 4 ? vldrbq_s32(w + t * ws) : vldrbq_z_s32(w + t * ws, p);
            a0 = vaddq_s32(a0, vmulq_s32(xv, wv));
        }
        if (t >= shift) {
            a1 = vaddq_s32(a1, vmulq_s32(xv, shift == 1 ? w1 : w2));
        }
        __asm__ volatile("" : "+w"(a0), "+w"(a1)); /* the sums tap by tap (vmcu_mac8_s8_mve) */
        w2 = w1;
        w1 = wv;
    }
    *acc0 = a0;
    *acc1 = a1;
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

/** A kernel row of eight channels (the first `lanes`) for two adjacent output pixels whose windows are
 *  `shift` (1 or 2: the stride) columns apart (DotLanesPair): for t < taps, pixel 0's even/odd +=
 *  (x[t xs + k] + x_offset) * w[t ws + k] and pixel 1's += (x[(t + shift) xs + k] + x_offset) * w[t ws + k].
 *  Pixel 1's tap t - shift reads pixel 0's column t: each of the row's taps + shift columns is loaded and
 *  offset once for both pixels, each tap's weights loaded once and kept for pixel 1 `shift` columns later.
 *  Lanes past `lanes` load as 0 and add 0. */
VMCU_INLINE void vmcu_mac8x2_row_s8_mve(const int8_t *x, const int8_t *w, int32_t taps, int32_t shift, int32_t xs,
                                        int32_t ws, int32_t x_offset, int32_t lanes, int32x4_t *even0,
                                        int32x4_t *odd0, int32x4_t *even1, int32x4_t *odd1)
{
    const mve_pred16_t p = vctp16q((uint32_t)(lanes < 8 ? lanes : 8));
    int32x4_t e0 = *even0, o0 = *odd0, e1 = *even1, o1 = *odd1;
    int16x8_t w1 = vdupq_n_s16(0), w2 = w1; /* the weights of the taps one and two columns back */
    int32_t t;
    for (t = 0; t < taps + shift; ++t) {
        const int16x8_t xv = vaddq_n_s16(lanes >= 8 ? vldrbq_s16(x + t * xs) : vldrbq_z_s16(x + t * xs, p),
                                         (int16_t)x_offset);
        int16x8_t wv = w1;
        if (t < taps) {
            wv = lanes >= 8 ? vldrbq_s16(w + t * ws) : vldrbq_z_s16(w + t * ws, p);
            e0 = vaddq_s32(e0, vmullbq_int_s16(xv, wv));
            o0 = vaddq_s32(o0, vmulltq_int_s16(xv, wv));
        }
        if (t >= shift) {
            const int16x8_t back = shift == 1 ? w1 : w2;
            e1 = vaddq_s32(e1, vmullbq_int_s16(xv, back));
            o1 = vaddq_s32(o1, vmulltq_int_s16(xv, back));
        }
        __asm__ volatile("" : "+w"(e0), "+w"(o0), "+w"(e1), "+w"(o1)); /* the sums tap by tap (vmcu_mac8_s8_mve) */
        w2 = w1;
        w1 = wv;
    }
    *even0 = e0;
    *odd0 = o0;
    *even1 = e1;
    *odd1 = o1;
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

#endif /* VMCU_DSP_MVE_LANES_H */
