/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * The requantization forms the converter proves a layer may take (narrow, shifted), each with its DSP
 * and portable bodies (and Helium's vector form of the shifted one), and the ADD run built on them.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_REQUANT_H
#define VMCU_DSP_REQUANT_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
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
#if !VMCU_MVE /* Helium's vector loop above takes these runs; in its builds this branch only kept GCC from
               * inlining the run into the chains (MCUNet-320KB's residual chains: 0.25 M instructions) */
            if (a_step == 1 && b_step == 1 && lo == -128 && hi == 127) {
                /* two inputs' runs and no activation (a residual ADD): the clamp is SSAT, whose operand
                 * shift takes the narrow form's last halving, and the pointers step alone, which frees
                 * the registers the steps' multiplies and the bounds held (20 instructions an element
                 * down to 13 on the Cortex-M4) */
                for (; i < len; ++i) {
                    out[i] = (int8_t)vmcu_sat8(vmcu_requantize_narrow(t1[a[i]] + t2[b[i]], mo2, so1, oo));
                }
                return;
            }
#endif
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

#endif /* VMCU_DSP_REQUANT_H */
