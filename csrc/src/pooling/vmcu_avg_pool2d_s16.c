/*
 * AVERAGE_POOL_2D, int16 (a 16x8 model's): TFLite's integer AveragePool over int16 values. A window's
 * in-bounds taps are summed in int32 and divided by their count, rounding half away from zero, then
 * clamped. With a PAD folded in (p->padded) the taps outside the input hold p->pad_value and count.
 * Pixel by pixel (the output may lie over input no later window reads: pool16_access) in blocks of up to 16
 * channels whose sums stay on the stack: each tap's channels of a block are one contiguous run, read
 * through a pointer into the pool (one load and one add a value) unless the run crosses the pool's end.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

#include "vmcu_pool2d_s16.h"

#define BLOCK 16

/** sum[j] += the `len` int16 values at element `at` of the input (a tap's channels of a block). */
static void add_run(const vmcu_view *in, uint32_t at, int32_t len, int32_t sum[BLOCK])
{
    const int16_t *run = vmcu_span16(in, 2u * at, 2u * (uint32_t)len);
    int32_t j;
    if (run != 0 && len == BLOCK) {
        for (j = 0; j < BLOCK; ++j) { /* a constant count: unrolled, no loop test a value */
            sum[j] += run[j];
        }
    } else if (run != 0) {
        for (j = 0; j < len; ++j) {
            sum[j] += run[j];
        }
    } else {
        for (j = 0; j < len; ++j) {
            sum[j] += vmcu_load_signed(in, at + (uint32_t)j, 2u);
        }
    }
}

vmcu_status vmcu_avg_pool2d_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)params;
    const int32_t channels = p->output.c;
    int32_t n, y, x, c0;
    (void)ctx;
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            int32_t fy_lo, fy_hi;
            const int32_t y0 = vmcu_pool_window(y, p->stride_h, p->pad_h, p->input.h, p->filter_h, &fy_lo, &fy_hi);
            for (x = 0; x < p->output.w; ++x) {
                int32_t fx_lo, fx_hi;
                const int32_t x0 = vmcu_pool_window(x, p->stride_w, p->pad_w, p->input.w, p->filter_w, &fx_lo, &fx_hi);
                const int32_t inside = (fy_hi > fy_lo ? fy_hi - fy_lo : 0) * (fx_hi > fx_lo ? fx_hi - fx_lo : 0);
                const int32_t count = p->padded ? p->filter_h * p->filter_w : inside;
                const int32_t padding_sum = p->padded ? (count - inside) * p->pad_value : 0;
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * channels);
                for (c0 = 0; c0 < channels; c0 += BLOCK) {
                    const int32_t len = channels - c0 < BLOCK ? channels - c0 : BLOCK;
                    int32_t sum[BLOCK];
                    int32_t fy, fx, j;
                    for (j = 0; j < BLOCK; ++j) {
                        sum[j] = padding_sum;
                    }
                    for (fy = fy_lo; fy < fy_hi; ++fy) {
                        for (fx = fx_lo; fx < fx_hi; ++fx) {
                            add_run(&inputs[0],
                                    (uint32_t)(((n * p->input.h + y0 + fy) * p->input.w + x0 + fx) * channels + c0),
                                    len, sum);
                        }
                    }
                    for (j = 0; j < len; ++j) {
                        int32_t average = 0;
                        if (count > 0) {
                            average = sum[j] > 0 ? (sum[j] + count / 2) / count : (sum[j] - count / 2) / count;
                        }
                        vmcu_store_signed(output, out_pixel + (uint32_t)(c0 + j), 2u,
                                          vmcu_clamp(average, p->act_min, p->act_max));
                    }
                }
            }
        }
    }
    return VMCU_OK;
}

const vmcu_kernel vmcu_avg_pool2d_s16_kernel = {
    .run = vmcu_avg_pool2d_s16, .check = vmcu_pool2d_s16_check, .digest = vmcu_pool2d_s16_digest};
