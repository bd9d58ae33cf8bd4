/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * The 2x2 tiles over widened inputs: the DSP assembly's runs and GEMM tiles (vmcu_dot_dsp.c, under
 * VMCU_DOT_RUN), and the inline tile with its Helium, DSP and portable bodies.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_GEMM_H
#define VMCU_DSP_GEMM_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
#endif

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
/* The same three over a paired filter's rows (kernels/paired_weights.py): w1 = w0 + 4, row k's group of
 * four inputs i .. i + 3 at w_k + 2i; the 2x4 tile's second pair at w0 + 2 len. */
void vmcu_dot2x2p_s16_s8_run(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                             int32_t acc[4]);
void vmcu_dot2x4p_s16_s8_run(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1, int32_t len,
                             int32_t acc[8]);
void vmcu_dot1x2p_s16_s8_run(const int16_t *x0, const int8_t *w0, const int8_t *w1, int32_t len, int32_t acc[2]);
/**
 * A GEMM's channels for two pixels, a pair at a time: for channel c = 2j + k of `pairs` pairs,
 * out[p * out_stride + c] = sat8(vmcu_requantize_narrow(bias[c] + x_p . w_c, multiplier[c],
 * shift[c], offset)), with x_p len widened inputs (len a multiple of 8) that vmcu_widen_s8_pair
 * interleaved in `x`, w_c = w + c * len. The 2x2 row loop above over one LDM of both pixels'
 * words per group of four inputs, then the four values requantized and stored from their
 * registers: no accumulator array, no call per channel group. The generated GEMMs call it
 * (lower.dsp gemm_run) for layers whose requantization takes the narrow form; the field order is
 * the assembly's.
 */
typedef struct {
    const int16_t *x;           /* both pixels, interleaved by groups of four (vmcu_widen_s8_pair) */
    const void *w;              /* the first pair's two rows, len apart: w_c = w + c * len (int8_t, or int16_t
                                 * for the `w` forms) */
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
/* The tile of one pixel (a GEMM's last of an odd count, a chain row's last): x its inputs as
 * vmcu_widen_s8 left them, out_stride not read; 11 instructions per group of four. */
void vmcu_gemm1x2_narrow_b16_run(const vmcu_gemm_tile *tile);
void vmcu_gemm1x2_narrow_b32_run(const vmcu_gemm_tile *tile);
/* The `p` forms: the same over an int8 filter in the paired layout (kernels/paired_weights.py), w the
 * first pair's two rows interleaved word by word (group g of channel c = 2j + k at w + 2j * len + 8g + 4k):
 * one LDRD loads both rows' words, 14 instructions per group of four for two pixels, 10 for one. */
void vmcu_gemm2x2p_narrow_b16_run(const vmcu_gemm_tile *tile);
void vmcu_gemm2x2p_narrow_b32_run(const vmcu_gemm_tile *tile);
void vmcu_gemm1x2p_narrow_b16_run(const vmcu_gemm_tile *tile);
void vmcu_gemm1x2p_narrow_b32_run(const vmcu_gemm_tile *tile);
/* The same for rows of exactly k = 8, 16, 24, 32, 40, 48, 64, 80 or 96 inputs
 * (lower.dsp UNROLLED_ROWS), len = k, pairs >= 1: each row unrolled, the pair's pointers in
 * registers (vmcu_dot_dsp.c). The `w` forms read int16 rows (a filter the converter widened,
 * kernels/widened_weights.py) against inputs widened in order (vmcu_widen_s8_pair_natural); they
 * also take k = 12, 20, 28 and 36 (lower.dsp INT16_ROWS: gathered stems' windows). The gemm1x2 forms
 * are the tile of one pixel, as above (the `w` forms' inputs as vmcu_widen_s8_natural left them); the
 * gemm3x2[w] forms (vmcu_gemm3x2_dsp.c) the tile of three (a chain row's last of an odd width), x
 * their inputs as three rows k apart as vmcu_widen_s8 (vmcu_widen_s8_natural for the `w` forms) left
 * them, pixel p's outputs at out + p * out_stride: 21 instructions per group of four (17 over int16
 * rows). The `p` forms of each read paired rows, as above (the tile of three: 20). */
#define VMCU_GEMM2X2W_K_DECLARE(k)                                                                    \
    void vmcu_gemm2x2w_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm2x2w_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm1x2w_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm1x2w_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);
#define VMCU_GEMM2X2_K_DECLARE(k)                                                                     \
    void vmcu_gemm2x2_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm2x2_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm1x2_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm1x2_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm3x2_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm3x2_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                              \
    void vmcu_gemm3x2w_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm3x2w_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm2x2p_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm2x2p_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm1x2p_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm1x2p_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm3x2p_k##k##_narrow_b16_run(const vmcu_gemm_tile *tile);                             \
    void vmcu_gemm3x2p_k##k##_narrow_b32_run(const vmcu_gemm_tile *tile);                             \
    VMCU_GEMM2X2W_K_DECLARE(k)
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
VMCU_GEMM2X2W_K_DECLARE(12)
VMCU_GEMM2X2W_K_DECLARE(20)
VMCU_GEMM2X2W_K_DECLARE(28)
VMCU_GEMM2X2W_K_DECLARE(36)
#undef VMCU_GEMM2X2W_K_DECLARE

/**
 * Two pixels' len inputs (len a multiple of 4) widened as vmcu_widen_s8 does, interleaved by groups
 * of four: group g of pixel p at dst + 8g + 4p, so that one LDM of four words loads both pixels'
 * group (vmcu_gemm_tile). The generated GEMMs widen a tile of two pixels this way only where every
 * dot product over it is the assembly's (lower.dsp gemm_run).
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

/** The same in order within each group (x_p[i .. i + 3] at dst + 2i + 4p), for int16 weights. */
static inline void vmcu_widen_s8_pair_natural(int16_t *dst, const int8_t *x0, const int8_t *x1, int32_t len,
                                              uint32_t offsets)
{
    int32_t i;
    for (i = 0; i < len; i += 4) {
        const uint32_t a = vmcu_load32(x0 + i), b = vmcu_load32(x1 + i);
        const uint32_t a02 = vmcu_offset02(offsets, a), a13 = vmcu_offset13(offsets, a);
        const uint32_t b02 = vmcu_offset02(offsets, b), b13 = vmcu_offset13(offsets, b);
        const uint32_t words[4] = {vmcu_pack_lo(a02, a13), vmcu_pack_hi(a02, a13), vmcu_pack_lo(b02, b13),
                                   vmcu_pack_hi(b02, b13)};
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
 * (offset included) and weight rows w_k, from input `start` on; x1 and w1 may be NULL (one input, one
 * row). With `paired` (a constant: kernels/paired_weights.py) the rows are a pair interleaved word by
 * word, len a multiple of 4: row k's group of four inputs i .. i + 3 at w_k + 2i. Called with
 * constant NULLs, the compiler keeps only the products asked for: with both pairs, 18
 * instructions per 16 multiply-accumulates (two words of weights widened once, four of inputs), or
 * 16 in vmcu_dot2x2[p]_s16_s8_run for rows of VMCU_DOT_RUN_MIN inputs or more.
 */
VMCU_INLINE void vmcu_dot_s16_s8_rows(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                      int32_t start, int32_t len, int32_t *acc, int32_t stride, int32_t paired)
{
    const int32_t groups = len - len % 4, ws = paired ? 2 : 1; /* a group of four's weights: w_k + ws i */
    int32_t i;
    int32_t a00 = acc[0], a01 = w1 ? acc[1] : 0, a10 = x1 ? acc[stride] : 0, a11 = x1 && w1 ? acc[stride + 1] : 0;
#if VMCU_MVE
    /* 8 lanes (4 over paired rows: a group's weights), the inputs as widened (in order), the weights
     * widened by VLDRB.S16 */
    const int32_t lanes = paired ? 4 : 8;
    (void)groups;
    for (i = 0; i < len; i += lanes) {
        const mve_pred16_t p = vctp16q((uint32_t)(len - i < lanes ? len - i : lanes));
        const int16x8_t v0 = vldrbq_z_s16(w0 + ws * i, p), u0 = vldrhq_z_s16(x0 + i, p);
        a00 = vmladavaq_s16(a00, u0, v0);
        if (w1) {
            const int16x8_t v1 = vldrbq_z_s16(w1 + ws * i, p);
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
        if (paired) {
            vmcu_dot2x2p_s16_s8_run(x0, x1, w0, w1, i, a);
        } else {
            vmcu_dot2x2_s16_s8_run(x0, x1, w0, w1, i, a);
        }
        a00 = a[0];
        a01 = a[1];
        a10 = a[2];
        a11 = a[3];
    } else if (start == 0 && !x1 && w1 && groups >= VMCU_DOT_RUN_MIN) {
        int32_t a[2] = {a00, a01};
        i = groups & ~7;
        if (paired) {
            vmcu_dot1x2p_s16_s8_run(x0, w0, w1, i, a);
        } else {
            vmcu_dot1x2_s16_s8_run(x0, w0, w1, i, a);
        }
        a00 = a[0];
        a01 = a[1];
    }
#endif
    for (; i < groups; i += 4) {
#if VMCU_DSP
        const uint32_t v0 = vmcu_load32(w0 + ws * i), v1 = w1 ? vmcu_load32(w1 + ws * i) : 0u;
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
            a00 += x0[i + j] * w0[ws * i + order[j]];
            if (w1) {
                a01 += x0[i + j] * w1[ws * i + order[j]];
            }
            if (x1) {
                a10 += x1[i + j] * w0[ws * i + order[j]];
                if (w1) {
                    a11 += x1[i + j] * w1[ws * i + order[j]];
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

/** vmcu_dot_s16_s8_rows over rows apart (not paired). */
VMCU_INLINE void vmcu_dot_s16_s8_at(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                    int32_t start, int32_t len, int32_t *acc, int32_t stride)
{
    vmcu_dot_s16_s8_rows(x0, x1, w0, w1, start, len, acc, stride, 0);
}

/**
 * vmcu_dot_s16_s8_rows over a paired filter's rows (kernels/paired_weights.py), acc[2p + k] (as
 * vmcu_dot_s16_s8's): the C the generated kernels fall back to where the GEMM assembly's paired
 * forms do not take a tile (cores without it, requantizations it does not do).
 */
VMCU_INLINE void vmcu_dot_s16_s8_paired(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                        int32_t len, int32_t *acc)
{
    vmcu_dot_s16_s8_rows(x0, x1, w0, w1, 0, len, acc, 2, 1);
}

/**
 * vmcu_dot_s16_s8_rows for four weight rows (acc[4p + k]), as two pairs: on the DSP path, for two inputs
 * and rows the 2x4 assembly tile takes (evenly spaced, or two pairs of paired rows side by side), one
 * call of vmcu_dot2x4[p]_s16_s8_run for both.
 */
VMCU_INLINE void vmcu_dot4_s16_s8_rows(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                       const int8_t *w2, const int8_t *w3, int32_t len, int32_t *acc, int32_t paired)
{
    int32_t start = 0;
#if VMCU_DOT_RUN
    if (paired) {
        if (x1 && len % 8 == 0 && len >= VMCU_DOT4_RUN_MIN && w1 - w0 == 4 && w2 - w0 == 2 * len && w3 - w2 == 4) {
            start = len;
            vmcu_dot2x4p_s16_s8_run(x0, x1, w0, w1, len, acc);
        }
    } else if (x1 && len - len % 4 >= VMCU_DOT4_RUN_MIN && w2 - w1 == w1 - w0 && w3 - w2 == w1 - w0) {
        start = (len - len % 4) & ~7;
        vmcu_dot2x4_s16_s8_run(x0, x1, w0, w1, start, acc);
    }
#endif
    vmcu_dot_s16_s8_rows(x0, x1, w0, w1, start, len, acc, 4, paired);
    vmcu_dot_s16_s8_rows(x0, x1, w2, w3, start, len, acc + 2, 4, paired);
}

/** vmcu_dot4_s16_s8_rows over a paired filter's rows (vmcu_dot_s16_s8_paired's fallback, four rows). */
VMCU_INLINE void vmcu_dot4_s16_s8_paired(const int16_t *x0, const int16_t *x1, const int8_t *w0, const int8_t *w1,
                                         const int8_t *w2, const int8_t *w3, int32_t len, int32_t *acc)
{
    vmcu_dot4_s16_s8_rows(x0, x1, w0, w1, w2, w3, len, acc, 1);
}

#endif /* VMCU_DSP_GEMM_H */
