/*
 * vmcu-tflite runtime, a part of vmcu_dsp.h.
 *
 * Helium's (MVE) int8 dot products over one or two inputs by two or four weight rows (VMLADAVA.S8,
 * 16 lanes a vector), the cores of the dot-product helpers' MVE path (vmcu_dsp_dot.h). Compiled only
 * where VMCU_MVE.
 *
 * vmcu_dsp.h includes this part after its configuration (VMCU_DSP, VMCU_MVE, VMCU_INLINE) and the
 * parts before it, whose helpers it uses; include vmcu_dsp.h, not this file.
 */
#ifndef VMCU_DSP_MVE_DOT_H
#define VMCU_DSP_MVE_DOT_H

#ifndef VMCU_DSP_H
#error "include vmcu/vmcu_dsp.h, which includes its parts in order"
#endif

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

/*
 * The GEMM loop over a tile of two pixels as a function of the runtime (vmcu_dot_mve.c, assembly):
 * for channel c = 4g + j of `groups` groups, out[p * out_stride + c] = vmcu_requantize_narrow(bias[c]
 * + x_p . w_c, multiplier[c], shift[c], offset) clamped to [act_min, act_max], with x_1 = x_0 + k
 * (both pixels' k int8 inputs in a row, the input offset folded into the bias) and w_c = w + c * k.
 * The generated GEMMs call it (lower.helium mve_gemm_run) for rows of exactly k = 8, 16, 24, 32, 40,
 * 48, 64, 80 or 96 inputs, each row unrolled; for longer rows (k a multiple of 8 up to 128, of 16 up
 * to 512) the same unrolled, pixel 1's inputs x_stride on; the form below for the others. The field
 * order is the assembly's.
 */
#if VMCU_MVE && defined(__GNUC__) && defined(__OPTIMIZE__)
#define VMCU_MVE_GEMM_RUN 1
typedef struct {
    const int8_t *x;            /* pixel 0's k inputs, pixel 1's right after them */
    const int8_t *w;            /* the first group's four rows, k apart */
    const void *bias;           /* int16_t (..._b16_run) or int32_t (..._b32_run) */
    const int32_t *multiplier;  /* m2 = 2m - 2^32 */
    const int8_t *shift;        /* r1 = r - 1 */
    int32_t offset2;            /* 2 * offset + 1 */
    int8_t *out;
    int32_t out_stride;
    int32_t groups;
    int32_t act_min, act_max;
    int32_t len;                /* k: read by the ..._b*_run of any row length only */
    int32_t x_stride;           /* pixel 1's inputs from pixel 0's: read by that one and the wide rows' */
} vmcu_gemm_mve_tile;
#define VMCU_GEMM_MVE_K_DECLARE(k)                                                                    \
    void vmcu_gemm_mve_k##k##_b16_run(const vmcu_gemm_mve_tile *tile);                                \
    void vmcu_gemm_mve_k##k##_b32_run(const vmcu_gemm_mve_tile *tile);
VMCU_GEMM_MVE_K_DECLARE(8)
VMCU_GEMM_MVE_K_DECLARE(16)
VMCU_GEMM_MVE_K_DECLARE(24)
VMCU_GEMM_MVE_K_DECLARE(32)
VMCU_GEMM_MVE_K_DECLARE(40)
VMCU_GEMM_MVE_K_DECLARE(48)
VMCU_GEMM_MVE_K_DECLARE(64)
VMCU_GEMM_MVE_K_DECLARE(80)
VMCU_GEMM_MVE_K_DECLARE(96)
VMCU_GEMM_MVE_K_DECLARE(104)
VMCU_GEMM_MVE_K_DECLARE(112)
VMCU_GEMM_MVE_K_DECLARE(120)
VMCU_GEMM_MVE_K_DECLARE(128)
VMCU_GEMM_MVE_K_DECLARE(144)
VMCU_GEMM_MVE_K_DECLARE(160)
VMCU_GEMM_MVE_K_DECLARE(176)
VMCU_GEMM_MVE_K_DECLARE(192)
VMCU_GEMM_MVE_K_DECLARE(208)
VMCU_GEMM_MVE_K_DECLARE(224)
VMCU_GEMM_MVE_K_DECLARE(240)
VMCU_GEMM_MVE_K_DECLARE(256)
VMCU_GEMM_MVE_K_DECLARE(272)
VMCU_GEMM_MVE_K_DECLARE(288)
VMCU_GEMM_MVE_K_DECLARE(304)
VMCU_GEMM_MVE_K_DECLARE(320)
VMCU_GEMM_MVE_K_DECLARE(336)
VMCU_GEMM_MVE_K_DECLARE(352)
VMCU_GEMM_MVE_K_DECLARE(368)
VMCU_GEMM_MVE_K_DECLARE(384)
VMCU_GEMM_MVE_K_DECLARE(400)
VMCU_GEMM_MVE_K_DECLARE(416)
VMCU_GEMM_MVE_K_DECLARE(432)
VMCU_GEMM_MVE_K_DECLARE(448)
VMCU_GEMM_MVE_K_DECLARE(464)
VMCU_GEMM_MVE_K_DECLARE(480)
VMCU_GEMM_MVE_K_DECLARE(496)
VMCU_GEMM_MVE_K_DECLARE(512)
#undef VMCU_GEMM_MVE_K_DECLARE
/* The same for rows of any length len and pixels x_stride apart: two rows at a time over both
 * pixels, in tail-predicated loops. */
void vmcu_gemm_mve_b16_run(const vmcu_gemm_mve_tile *tile);
void vmcu_gemm_mve_b32_run(const vmcu_gemm_mve_tile *tile);
#else
#define VMCU_MVE_GEMM_RUN 0
#endif

#endif /* VMCU_DSP_MVE_DOT_H */
