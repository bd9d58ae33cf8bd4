/*
 * MAX_POOL_2D, int16 (a 16x8 model's): TFLite's integer MaxPool over int16 values: the greatest of a
 * window's in-bounds taps (from -32768), then the clamp. With a PAD folded in (p->padded) the taps
 * outside the input hold p->pad_value, as the PAD's output would. Element by element over the whole
 * tensor, each output element written once its taps are read (the output may lie over input no later
 * window reads: pool16_access).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

#include "vmcu_pool2d_s16.h"

vmcu_status vmcu_max_pool2d_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
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
                const int clipped = fy_lo > 0 || fy_hi < p->filter_h || fx_lo > 0 || fx_hi < p->filter_w;
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * channels);
                for (c = 0; c < channels; ++c) {
                    int32_t best = p->padded && clipped ? p->pad_value : -32768, fy, fx;
                    for (fy = fy_lo; fy < fy_hi; ++fy) {
                        for (fx = fx_lo; fx < fx_hi; ++fx) {
                            const uint32_t at =
                                (uint32_t)(((n * p->input.h + y0 + fy) * p->input.w + x0 + fx) * channels + c);
                            const int32_t v = vmcu_load_signed(&inputs[0], at, 2u);
                            best = v > best ? v : best;
                        }
                    }
                    vmcu_store_signed(output, out_pixel + (uint32_t)c, 2u, vmcu_clamp(best, p->act_min, p->act_max));
                }
            }
        }
    }
    return VMCU_OK;
}

const vmcu_kernel vmcu_max_pool2d_s16_kernel = {
    .run = vmcu_max_pool2d_s16, .check = vmcu_pool2d_s16_check, .digest = vmcu_pool2d_s16_digest};
