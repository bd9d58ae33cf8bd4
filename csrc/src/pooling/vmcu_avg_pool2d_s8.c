/*
 * AVERAGE_POOL_2D, int8: TFLite's integer AveragePool.
 *
 * The raw int8 values of a window's in-bounds taps are summed in int32 and divided by their
 * count, rounding half away from zero (input and output share their quantization). Iterations
 * (n, y, x, channel segment); inside a segment, blocks of up to 16 channels keep their sums on
 * the stack and read each tap's channels as one contiguous run. On a DSP core a full block of a
 * window of at most 256 taps sums in 16-bit lanes (|sum| <= 256 * 128 fits), two channels per
 * SXTAB16: four words of a tap's channels in eight instructions.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_dsp.h"

#include "vmcu_pool2d.h"

#define BLOCK 16
#define LANE_TAPS 256

/** sum[j] = channel j of a full block summed over the window's taps (1), or 0 if a tap's block wraps the pool. */
static int sum_block_lanes(const vmcu_view *in, uint32_t row0, uint32_t row_stride, uint32_t tap_stride, int32_t rows,
                           int32_t taps, int32_t sum[BLOCK])
{
#if VMCU_DSP
    uint32_t lanes[BLOCK / 2] = {0u};
    int32_t r, t, k;
    for (r = 0; r < rows; ++r) {
        for (t = 0; t < taps; ++t) {
            const int8_t *run = vmcu_span(in, row0 + (uint32_t)r * row_stride + (uint32_t)t * tap_stride, BLOCK);
            if (run == 0) {
                return 0;
            }
            for (k = 0; k < BLOCK / 4; ++k) {
                const uint32_t word = vmcu_load32(run + 4 * k);
                lanes[2 * k] = vmcu_sxtab16(lanes[2 * k], word);         /* channels 4k, 4k + 2 */
                lanes[2 * k + 1] = vmcu_sxtab16_ror8(lanes[2 * k + 1], word); /* channels 4k + 1, 4k + 3 */
            }
        }
    }
    for (k = 0; k < BLOCK / 4; ++k) {
        sum[4 * k] = (int16_t)(lanes[2 * k] & 0xFFFFu);
        sum[4 * k + 2] = (int16_t)(lanes[2 * k] >> 16);
        sum[4 * k + 1] = (int16_t)(lanes[2 * k + 1] & 0xFFFFu);
        sum[4 * k + 3] = (int16_t)(lanes[2 * k + 1] >> 16);
    }
    return 1;
#else
    (void)in, (void)row0, (void)row_stride, (void)tap_stride, (void)rows, (void)taps, (void)sum;
    return 0;
#endif
}

vmcu_status vmcu_avg_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t channels = p->output.c;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t n, y, x, first;
    if (segment < 1 || channels != p->input.c) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            const int32_t y0 = y * p->stride_h - p->pad_h;
            const int32_t fy_lo = y0 < 0 ? -y0 : 0;
            const int32_t fy_hi = p->input.h - y0 < p->filter_h ? p->input.h - y0 : p->filter_h;
            for (x = 0; x < p->output.w; ++x) {
                const int32_t x0 = x * p->stride_w - p->pad_w;
                const int32_t fx_lo = x0 < 0 ? -x0 : 0;
                const int32_t fx_hi = p->input.w - x0 < p->filter_w ? p->input.w - x0 : p->filter_w;
                const int32_t inside = fy_hi > fy_lo && fx_hi > fx_lo ? (fy_hi - fy_lo) * (fx_hi - fx_lo) : 0;
                /* a folded PAD's taps count and hold pad_value; TFLite's own padding is skipped */
                const int32_t count = p->padded ? p->filter_h * p->filter_w : inside;
                const int32_t padding_sum = p->padded ? (count - inside) * p->pad_value : 0;
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * channels);
                for (first = 0; first < channels; first += segment) {
                    const int32_t last = first + segment < channels ? first + segment : channels;
                    int32_t c0;
                    for (c0 = first; c0 < last; c0 += BLOCK) {
                        const int32_t len = last - c0 < BLOCK ? last - c0 : BLOCK;
                        int32_t sum[BLOCK];
                        int32_t fy, fx, j;
                        /* in uint32: a window wholly in a folded PAD's padding may start far outside the
                         * input, where the product would not fit int32 (and its corner is not read) */
                        const uint32_t corner =
                            (((uint32_t)n * (uint32_t)p->input.h + (uint32_t)(y0 + fy_lo)) * (uint32_t)p->input.w +
                             (uint32_t)(x0 + fx_lo)) * (uint32_t)channels + (uint32_t)c0;
                        if (len == BLOCK && inside > 0 && inside <= LANE_TAPS &&
                            sum_block_lanes(in, corner, (uint32_t)(p->input.w * channels), (uint32_t)channels,
                                            fy_hi - fy_lo, fx_hi - fx_lo, sum)) {
                            fy = fy_hi; /* summed: the taps' loop below has nothing left */
                        } else {
                            fy = fy_lo;
                            for (j = 0; j < len; ++j) {
                                sum[j] = 0;
                            }
                        }
                        for (; fy < fy_hi; ++fy) {
                            for (fx = fx_lo; fx < fx_hi; ++fx) {
                                const uint32_t offset =
                                    (uint32_t)(((n * p->input.h + y0 + fy) * p->input.w + x0 + fx) * channels + c0);
                                const int8_t *run = vmcu_span(in, offset, (uint32_t)len);
                                if (run != 0) {
                                    for (j = 0; j < len; ++j) {
                                        sum[j] += run[j];
                                    }
                                } else {
                                    for (j = 0; j < len; ++j) {
                                        sum[j] += vmcu_get(in, offset + (uint32_t)j);
                                    }
                                }
                            }
                        }
                        for (j = 0; j < len; ++j) {
                            int32_t average = 0;
                            sum[j] += padding_sum;
                            if (count > 0) {
                                average = sum[j] > 0 ? (sum[j] + count / 2) / count : (sum[j] - count / 2) / count;
                            }
                            ctx->scratch[c0 + j - first] = (int8_t)vmcu_clamp(average, p->act_min, p->act_max);
                        }
                    }
                    vmcu_write(output, out_pixel + (uint32_t)first, ctx->scratch, (uint32_t)(last - first));
                }
            }
        }
    }
    return VMCU_OK;
}

const vmcu_kernel vmcu_avg_pool2d_s8_kernel = {
    .run = vmcu_avg_pool2d_s8, .check = vmcu_pool2d_check, .digest = vmcu_pool2d_digest};
