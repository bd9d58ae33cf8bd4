/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * The DSP extension's depthwise lanes: four channels of one tap per word (SMLABB / SMLATT), and a
 * pixel pair's or triple's rows of taps. Compiled only where VMCU_DSP.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_ARM_LANES_H
#define VMCU_DSP_ARM_LANES_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
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

/** vmcu_mac4_s8 over a lane-ordered filter (vmcu_lane_order), `w` a group's start: the tap's two halves
 *  are a word each, ready for SMLABB/SMLATT (two loads, where the int8 word takes a load and two SXTB16). */
static inline void vmcu_mac4_lanes16(uint32_t xw, const int16_t *w, uint32_t offsets, int32_t acc[4])
{
    const uint32_t x02 = vmcu_sxtab16(offsets, xw), x13 = vmcu_sxtab16_ror8(offsets, xw);
    const uint32_t w02 = vmcu_load32((const int8_t *)w), w13 = vmcu_load32((const int8_t *)(w + 2));
    acc[0] = vmcu_smlabb(x02, w02, acc[0]);
    acc[1] = vmcu_smlabb(x13, w13, acc[1]);
    acc[2] = vmcu_smlatt(x02, w02, acc[2]);
    acc[3] = vmcu_smlatt(x13, w13, acc[3]);
}

/** The weights of tap t's half group (channels half and half + 2) as two halfwords: from an int8 filter's
 *  word by one SXTB16 (or of its rotation), from a lane-ordered one's (`lanes16`) as stored. */
VMCU_INLINE uint32_t vmcu_half_taps(const void *w, int32_t t, int32_t ws, int32_t half, int32_t lanes16)
{
    if (lanes16) {
        return vmcu_load32((const int8_t *)((const int16_t *)w + t * ws + 2 * half));
    }
    const uint32_t ww = vmcu_load32((const int8_t *)w + t * ws);
    return half ? vmcu_sxtb16_ror8(ww) : vmcu_sxtb16(ww);
}

/**
 * Half a kernel row of a depthwise group of four channels for two adjacent output pixels whose windows
 * are `shift` (1 or 2: the stride) columns apart (DotLanesPair): for the channels k = half and half + 2
 * (the halfwords SXTAB16 makes of a word, or of its rotation by 8), acc[k] += (x[t xs + k] + x_offset)
 * * w[t ws + k] and acc1[k] += (x[(t + shift) xs + k] + x_offset) * w[t ws + k], t < taps. Pixel 1's
 * tap t - shift and pixel 0's tap t read the same column, so each column's word is loaded and widened
 * once for both, and each tap's weights once: per column two loads, two extensions (one where `w` is a
 * lane-ordered filter, `lanes16`) and four multiply-accumulates. The four accumulators, a column's
 * halfwords and the last taps' weights take at most eleven registers with the pointers and offsets:
 * called for one half over every row of the window, the accumulators stay in registers; the whole
 * group's eight would not, and GCC would store and load them at every row.
 */
VMCU_INLINE void vmcu_mac2x2_row(const int8_t *x, const void *w, int32_t taps, int32_t shift, int32_t xs, int32_t ws,
                                 uint32_t offsets, int32_t half, int32_t lanes16, int32_t acc[4], int32_t acc1[4])
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
            wt = vmcu_half_taps(w, t, ws, half, lanes16);
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

/** vmcu_mac2x2_row over an int8 filter. */
VMCU_INLINE void vmcu_mac2x2_row_s8(const int8_t *x, const int8_t *w, int32_t taps, int32_t shift, int32_t xs,
                                    int32_t ws, uint32_t offsets, int32_t half, int32_t acc[4], int32_t acc1[4])
{
    vmcu_mac2x2_row(x, w, taps, shift, xs, ws, offsets, half, 0, acc, acc1);
}

/** vmcu_mac2x2_row over a lane-ordered filter (vmcu_lane_order), `w` a group's start: each tap's half group
 *  one load, no SXTB16 (seven instructions per column of four products, not eight). */
VMCU_INLINE void vmcu_mac2x2_row_lanes16(const int8_t *x, const int16_t *w, int32_t taps, int32_t shift, int32_t xs,
                                         int32_t ws, uint32_t offsets, int32_t half, int32_t acc[4], int32_t acc1[4])
{
    vmcu_mac2x2_row(x, w, taps, shift, xs, ws, offsets, half, 1, acc, acc1);
}

/**
 * Half a kernel row of a depthwise group of four channels for three adjacent output pixels at a stride
 * of 1 (a DotLanesPair with acc2): vmcu_mac2x2_row's sums with shift 1, and acc2[k] += (x[(t + 2) xs +
 * k] + x_offset) * w[t ws + k]. Each column's word, loaded and widened once, serves the three pixels'
 * taps t, t - 1 and t - 2: per column two loads (one extension fewer over a lane-ordered filter) and six
 * multiply-accumulates, where a pair takes the same loads for four. The six accumulators, a column's
 * halfwords, the last two taps' weights, the pointers and the offsets take thirteen registers.
 */
VMCU_INLINE void vmcu_mac3x2_row(const int8_t *x, const void *w, int32_t taps, int32_t xs, int32_t ws,
                                 uint32_t offsets, int32_t half, int32_t lanes16, int32_t acc[4], int32_t acc1[4],
                                 int32_t acc2[4])
{
    int32_t p0 = acc[half], p2 = acc[half + 2], q0 = acc1[half], q2 = acc1[half + 2];
    int32_t r0 = acc2[half], r2 = acc2[half + 2];
    uint32_t w1 = 0u, w2 = 0u; /* the widened weights of the taps one and two columns back */
    int32_t t;
    for (t = 0; t < taps + 2; ++t) {
        const uint32_t xw = vmcu_load32(x + t * xs);
        const uint32_t xv = half ? vmcu_offset13(offsets, xw) : vmcu_offset02(offsets, xw);
        uint32_t wt = 0u;
        if (t >= 2) { /* pixel 2's tap t - 2 */
            r0 = vmcu_smlabb(xv, w2, r0);
            r2 = vmcu_smlatt(xv, w2, r2);
        }
        if (t >= 1 && t <= taps) { /* pixel 1's tap t - 1 */
            q0 = vmcu_smlabb(xv, w1, q0);
            q2 = vmcu_smlatt(xv, w1, q2);
        }
        if (t < taps) {
            wt = vmcu_half_taps(w, t, ws, half, lanes16);
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
    acc2[half] = r0;
    acc2[half + 2] = r2;
}

/** vmcu_mac3x2_row over an int8 filter. */
VMCU_INLINE void vmcu_mac3x2_row_s8(const int8_t *x, const int8_t *w, int32_t taps, int32_t xs, int32_t ws,
                                    uint32_t offsets, int32_t half, int32_t acc[4], int32_t acc1[4], int32_t acc2[4])
{
    vmcu_mac3x2_row(x, w, taps, xs, ws, offsets, half, 0, acc, acc1, acc2);
}

/** vmcu_mac3x2_row over a lane-ordered filter (vmcu_lane_order), `w` a group's start. */
VMCU_INLINE void vmcu_mac3x2_row_lanes16(const int8_t *x, const int16_t *w, int32_t taps, int32_t xs, int32_t ws,
                                         uint32_t offsets, int32_t half, int32_t acc[4], int32_t acc1[4],
                                         int32_t acc2[4])
{
    vmcu_mac3x2_row(x, w, taps, xs, ws, offsets, half, 1, acc, acc1, acc2);
}

/** acc[k] += x[k] for k < len (a global average pool's sums): a word of four values at a time, each byte
 *  sign-extended into its sum by one instruction, where a byte alone takes a load, an add and a store
 *  (vmcu_accumulate_dsp.c: out of line, so that each of a chain's pixel tiles costs a call, not a copy). */
void vmcu_accumulate_s8_dsp(int32_t *acc, const int8_t *x, int32_t len);
#endif

#endif /* VMCU_DSP_ARM_LANES_H */
