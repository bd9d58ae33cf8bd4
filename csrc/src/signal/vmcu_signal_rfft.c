/*
 * SignalRfft, int16 (TFLite Micro's signal library): kissfft's FIXED_POINT 16 real FFT (kiss_fftr)
 * of each row of samples, zero-padded to fft_length: a complex FFT of fft_length / 2 points over
 * the samples taken as (real, imag) pairs, then the split into fft_length / 2 + 1 bins.
 *
 * kissfft's fixed-point arithmetic: every butterfly input is divided by the radix first (C_FIXDIV:
 * x * (32767 / radix), + 2^14, >> 15), a complex product rounds each int32 sum the same way, sums
 * wrap to int16 (done in 32 bits, then narrowed), HALF_OF halves a 32-bit sum. Radix 4, 2, 3 and 5
 * stages, recursing as kf_work does; the Q15 twiddles are the converter's tables. The padded row and the
 * complex FFT's output live in the scratch.
 */
#include <stdint.h>

#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

typedef struct {
    int16_t r, i;
} rfft_cpx;

typedef struct {
    const int32_t *factors;
    const int16_t *twiddles;
} rfft_plan;

static int16_t narrow(int32_t v)
{
    return (int16_t)(uint16_t)(uint32_t)v;
}

/* sround: (x + 2^14) >> 15 in int32 (wrapping), narrowed to int16. */
static int16_t sround(uint32_t x)
{
    return narrow((int32_t)(x + 16384u) >> 15);
}

static rfft_cpx fixdiv(rfft_cpx c, int32_t radix)
{
    const int32_t k = 32767 / radix;
    rfft_cpx out;
    out.r = sround((uint32_t)((int32_t)c.r * k));
    out.i = sround((uint32_t)((int32_t)c.i * k));
    return out;
}

static rfft_cpx cmul(rfft_cpx a, int16_t br, int16_t bi)
{
    rfft_cpx out;
    out.r = sround((uint32_t)((int32_t)a.r * br) - (uint32_t)((int32_t)a.i * bi));
    out.i = sround((uint32_t)((int32_t)a.r * bi) + (uint32_t)((int32_t)a.i * br));
    return out;
}

static rfft_cpx cadd(rfft_cpx a, rfft_cpx b)
{
    rfft_cpx out;
    out.r = narrow((int32_t)a.r + b.r);
    out.i = narrow((int32_t)a.i + b.i);
    return out;
}

static rfft_cpx csub(rfft_cpx a, rfft_cpx b)
{
    rfft_cpx out;
    out.r = narrow((int32_t)a.r - b.r);
    out.i = narrow((int32_t)a.i - b.i);
    return out;
}

static rfft_cpx twiddle(const rfft_plan *plan, int32_t k)
{
    rfft_cpx t;
    t.r = plan->twiddles[2 * k];
    t.i = plan->twiddles[2 * k + 1];
    return t;
}

static void bfly2(const rfft_plan *plan, rfft_cpx *f, int32_t fstride, int32_t m)
{
    int32_t j;
    for (j = 0; j < m; ++j) {
        rfft_cpx t;
        const rfft_cpx w = twiddle(plan, j * fstride);
        f[j] = fixdiv(f[j], 2);
        f[j + m] = fixdiv(f[j + m], 2);
        t = cmul(f[j + m], w.r, w.i);
        f[j + m] = csub(f[j], t);
        f[j] = cadd(f[j], t);
    }
}

/* S_MUL: a product rounded to 15 bits. */
static int16_t smul(int16_t a, int16_t b)
{
    return sround((uint32_t)((int32_t)a * b));
}

static void bfly3(const rfft_plan *plan, rfft_cpx *f, int32_t fstride, int32_t m)
{
    const rfft_cpx epi3 = twiddle(plan, fstride * m);
    int32_t j;
    for (j = 0; j < m; ++j) {
        rfft_cpx s0, s1, s2, s3, w;
        rfft_cpx *a = &f[j], *b = &f[j + m], *c = &f[j + 2 * m];
        *a = fixdiv(*a, 3);
        *b = fixdiv(*b, 3);
        *c = fixdiv(*c, 3);
        w = twiddle(plan, j * fstride);
        s1 = cmul(*b, w.r, w.i);
        w = twiddle(plan, 2 * j * fstride);
        s2 = cmul(*c, w.r, w.i);
        s3 = cadd(s1, s2);
        s0 = csub(s1, s2);
        b->r = narrow((int32_t)a->r - ((int32_t)s3.r >> 1));
        b->i = narrow((int32_t)a->i - ((int32_t)s3.i >> 1));
        s0.r = smul(s0.r, epi3.i); /* C_MULBYSCALAR */
        s0.i = smul(s0.i, epi3.i);
        *a = cadd(*a, s3);
        c->r = narrow((int32_t)b->r + s0.i);
        c->i = narrow((int32_t)b->i - s0.r);
        b->r = narrow((int32_t)b->r - s0.i);
        b->i = narrow((int32_t)b->i + s0.r);
    }
}

static void bfly5(const rfft_plan *plan, rfft_cpx *f, int32_t fstride, int32_t m)
{
    const rfft_cpx ya = twiddle(plan, fstride * m), yb = twiddle(plan, 2 * fstride * m);
    int32_t u, k;
    for (u = 0; u < m; ++u) {
        rfft_cpx s[13], w;
        rfft_cpx *out[5];
        for (k = 0; k < 5; ++k) {
            out[k] = &f[u + k * m];
            *out[k] = fixdiv(*out[k], 5);
        }
        s[0] = *out[0];
        for (k = 1; k < 5; ++k) {
            w = twiddle(plan, k * u * fstride);
            s[k] = cmul(*out[k], w.r, w.i);
        }
        s[7] = cadd(s[1], s[4]);
        s[10] = csub(s[1], s[4]);
        s[8] = cadd(s[2], s[3]);
        s[9] = csub(s[2], s[3]);
        out[0]->r = narrow((int32_t)s[0].r + s[7].r + s[8].r);
        out[0]->i = narrow((int32_t)s[0].i + s[7].i + s[8].i);
        s[5].r = narrow((int32_t)s[0].r + smul(s[7].r, ya.r) + smul(s[8].r, yb.r));
        s[5].i = narrow((int32_t)s[0].i + smul(s[7].i, ya.r) + smul(s[8].i, yb.r));
        s[6].r = narrow((int32_t)smul(s[10].i, ya.i) + smul(s[9].i, yb.i));
        s[6].i = narrow(-(int32_t)smul(s[10].r, ya.i) - smul(s[9].r, yb.i));
        *out[1] = csub(s[5], s[6]);
        *out[4] = cadd(s[5], s[6]);
        s[11].r = narrow((int32_t)s[0].r + smul(s[7].r, yb.r) + smul(s[8].r, ya.r));
        s[11].i = narrow((int32_t)s[0].i + smul(s[7].i, yb.r) + smul(s[8].i, ya.r));
        s[12].r = narrow(-(int32_t)smul(s[10].i, yb.i) + smul(s[9].i, ya.i));
        s[12].i = narrow((int32_t)smul(s[10].r, yb.i) - smul(s[9].r, ya.i));
        *out[2] = cadd(s[11], s[12]);
        *out[3] = csub(s[11], s[12]);
    }
}

static void bfly4(const rfft_plan *plan, rfft_cpx *f, int32_t fstride, int32_t m)
{
    int32_t j;
    for (j = 0; j < m; ++j) {
        rfft_cpx s0, s1, s2, s3, s4, s5, w;
        rfft_cpx *a = &f[j], *b = &f[j + m], *c = &f[j + 2 * m], *d = &f[j + 3 * m];
        *a = fixdiv(*a, 4);
        *b = fixdiv(*b, 4);
        *c = fixdiv(*c, 4);
        *d = fixdiv(*d, 4);
        w = twiddle(plan, j * fstride);
        s0 = cmul(*b, w.r, w.i);
        w = twiddle(plan, 2 * j * fstride);
        s1 = cmul(*c, w.r, w.i);
        w = twiddle(plan, 3 * j * fstride);
        s2 = cmul(*d, w.r, w.i);
        s5 = csub(*a, s1);
        *a = cadd(*a, s1);
        s3 = cadd(s0, s2);
        s4 = csub(s0, s2);
        *c = csub(*a, s3);
        *a = cadd(*a, s3);
        b->r = narrow((int32_t)s5.r + s4.i);
        b->i = narrow((int32_t)s5.i - s4.r);
        d->r = narrow((int32_t)s5.r - s4.i);
        d->i = narrow((int32_t)s5.i + s4.r);
    }
}

/* kissfft's kf_work: the p sub-FFTs of m points each (leaves copy the input), then the radix-p butterflies. */
static void work(const rfft_plan *plan, rfft_cpx *out, const int16_t *in, int32_t fstride, int32_t stage)
{
    const int32_t p = plan->factors[2 * stage], m = plan->factors[2 * stage + 1];
    int32_t q;
    for (q = 0; q < p; ++q) {
        if (m == 1) {
            out[q].r = in[2 * q * fstride];
            out[q].i = in[2 * q * fstride + 1];
        } else {
            work(plan, out + q * m, in + 2 * q * fstride, fstride * p, stage + 1);
        }
    }
    switch (p) {
    case 2:
        bfly2(plan, out, fstride, m);
        break;
    case 3:
        bfly3(plan, out, fstride, m);
        break;
    case 5:
        bfly5(plan, out, fstride, m);
        break;
    default:
        bfly4(plan, out, fstride, m);
        break;
    }
}

static void put_bin(const vmcu_view *output, uint32_t at, int32_t k, int32_t r, int32_t i)
{
    vmcu_store_le(output, at + 2u * (uint32_t)k, 2u, (uint64_t)(int64_t)r);
    vmcu_store_le(output, at + 2u * (uint32_t)k + 1u, 2u, (uint64_t)(int64_t)i);
}

vmcu_status vmcu_signal_rfft(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_signal_rfft_params *p = (const vmcu_signal_rfft_params *)params;
    const int32_t half = p->fft_length / 2;
    const uintptr_t misalign = (uintptr_t)ctx->scratch & 3u;
    int16_t *row = (int16_t *)(void *)(ctx->scratch + (misalign ? 4u - misalign : 0u));
    rfft_cpx *tmp = (rfft_cpx *)(void *)(row + p->fft_length);
    const rfft_plan plan = {p->factors, p->twiddles};
    int32_t r, k;
    if (p->fft_length < 4 || p->input_length < 1 || p->input_length > p->fft_length || p->rows < 1 ||
        p->num_factors < 1 || p->num_factors > VMCU_RFFT_MAX_FACTORS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (r = 0; r < p->rows; ++r) {
        const uint32_t in_at = (uint32_t)r * (uint32_t)p->input_length;
        const uint32_t out_at = (uint32_t)r * (uint32_t)(p->fft_length + 2);
        rfft_cpx dc;
        for (k = 0; k < p->fft_length; ++k) {
            row[k] = k < p->input_length ? (int16_t)(uint16_t)vmcu_load_le(&inputs[0], in_at + (uint32_t)k, 2u) : 0;
        }
        work(&plan, tmp, row, 1, 0);
        dc = fixdiv(tmp[0], 2);
        put_bin(output, out_at, 0, narrow((int32_t)dc.r + dc.i), 0);
        put_bin(output, out_at, half, narrow((int32_t)dc.r - dc.i), 0);
        for (k = 1; k <= half / 2; ++k) {
            rfft_cpx fpk = fixdiv(tmp[k], 2), fpnk, f1k, f2k, tw;
            fpnk.r = tmp[half - k].r;
            fpnk.i = narrow(-(int32_t)tmp[half - k].i);
            fpnk = fixdiv(fpnk, 2);
            f1k = cadd(fpk, fpnk);
            f2k = csub(fpk, fpnk);
            tw = cmul(f2k, p->super_twiddles[2 * (k - 1)], p->super_twiddles[2 * (k - 1) + 1]);
            put_bin(output, out_at, k, narrow(((int32_t)f1k.r + tw.r) >> 1), narrow(((int32_t)f1k.i + tw.i) >> 1));
            put_bin(output, out_at, half - k, narrow(((int32_t)f1k.r - tw.r) >> 1),
                    narrow(((int32_t)tw.i - f1k.i) >> 1));
        }
    }
    return VMCU_OK;
}

/*
 * An even length; radix 2 to 5 stages whose lengths multiply to fft_length / 2, each
 * pair's remaining points the previous ones' divided by its radix, down to 1; the twiddle tables
 * the digest reads; a scratch that holds the row and the complex FFT; whole rows in and out.
 */
static vmcu_status rfft_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_signal_rfft_params *p = (const vmcu_signal_rfft_params *)step->params;
    int32_t k, remaining;
    if (step->num_inputs != 1u || !vmcu_in_range(p->fft_length, 4, 16384) || p->fft_length % 2 != 0 ||
        !vmcu_in_range(p->input_length, 1, p->fft_length) || p->rows < 1 ||
        !vmcu_in_range(p->num_factors, 1, VMCU_RFFT_MAX_FACTORS) || p->twiddles == 0 || p->super_twiddles == 0 ||
        step->scratch < 4u * (uint32_t)p->fft_length + 3u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    remaining = p->fft_length / 2;
    for (k = 0; k < VMCU_RFFT_MAX_FACTORS; ++k) {
        const int32_t radix = p->factors[2 * k], rest = p->factors[2 * k + 1];
        if (k >= p->num_factors) {
            if (radix != 0 || rest != 0) {
                return VMCU_ERROR_BAD_MODEL;
            }
            continue;
        }
        if (radix < 2 || radix > 5 || remaining % radix != 0 || rest != remaining / radix) {
            return VMCU_ERROR_BAD_MODEL;
        }
        remaining = rest;
    }
    return remaining == 1 && vmcu_times(p->rows, p->input_length) == vmcu_input_bytes(model, step, 0u) / 2u &&
                   vmcu_input_bytes(model, step, 0u) % 2u == 0u &&
                   vmcu_times(p->rows, p->fft_length + 2) == vmcu_output_bytes(model, step) / 2u &&
                   vmcu_output_bytes(model, step) % 2u == 0u
               ? VMCU_OK
               : VMCU_ERROR_BAD_MODEL;
}

static uint32_t rfft_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_signal_rfft_params *p = (const vmcu_signal_rfft_params *)step->params;
    const int32_t fields[4] = {p->fft_length, p->input_length, p->rows, p->num_factors};
    crc = vmcu_crc32_i32s(crc, fields, 4u);
    crc = vmcu_crc32_i32s(crc, p->factors, 2u * VMCU_RFFT_MAX_FACTORS);
    if (p->fft_length >= 4 && p->twiddles != 0 && p->super_twiddles != 0) {
        crc = vmcu_crc32(crc, p->twiddles, 2u * (uint32_t)p->fft_length);
        crc = vmcu_crc32(crc, p->super_twiddles, (uint32_t)p->fft_length);
    }
    return crc;
}

const vmcu_kernel vmcu_signal_rfft_kernel = {.run = vmcu_signal_rfft, .check = rfft_check, .digest = rfft_digest};
