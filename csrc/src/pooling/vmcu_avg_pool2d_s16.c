/*
 * AVERAGE_POOL_2D, int16 (a 16x8 model's): TFLite's integer AveragePool over int16 values. A window's
 * in-bounds taps are summed in int32 and divided by their count, rounding half away from zero, then
 * clamped. With a PAD folded in (p->padded) the taps outside the input hold p->pad_value and count.
 * Element by element over the whole tensor (the output is apart from the input).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

#include "vmcu_pool2d_s16.h"

vmcu_status vmcu_avg_pool2d_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                const vmcu_view *output)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)params;
    const int32_t channels = p->output.c;
    int32_t n, y, x, c;
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
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * channels);
                for (c = 0; c < channels; ++c) {
                    int32_t sum = p->padded ? (count - inside) * p->pad_value : 0, average = 0, fy, fx;
                    for (fy = fy_lo; fy < fy_hi; ++fy) {
                        for (fx = fx_lo; fx < fx_hi; ++fx) {
                            const uint32_t at =
                                (uint32_t)(((n * p->input.h + y0 + fy) * p->input.w + x0 + fx) * channels + c);
                            sum += vmcu_load_signed(&inputs[0], at, 2u);
                        }
                    }
                    if (count > 0) {
                        average = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
                    }
                    vmcu_store_signed(output, out_pixel + (uint32_t)c, 2u, vmcu_clamp(average, p->act_min, p->act_max));
                }
            }
        }
    }
    return VMCU_OK;
}

const vmcu_kernel vmcu_avg_pool2d_s16_kernel = {
    .run = vmcu_avg_pool2d_s16, .check = vmcu_pool2d_s16_check, .digest = vmcu_pool2d_s16_digest};
