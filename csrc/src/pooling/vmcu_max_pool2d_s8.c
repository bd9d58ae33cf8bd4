/*
 * MAX_POOL_2D, int8: TFLite's integer MaxPool (in-bounds taps only, then the activation clamp).
 * With a PAD folded in (p->padded), the taps outside the input hold p->pad_value, as the PAD's
 * output would.
 *
 * Iterations (n, y, x, channel segment): the segment's maxima are kept in ctx->scratch while
 * the window's taps are read, one contiguous run of the segment's channels per tap.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu_pool2d.h"

vmcu_status vmcu_max_pool2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t channels = p->output.c;
    const int32_t segment = (int32_t)ctx->step->segment;
    int8_t *best = ctx->scratch;
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
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * channels);
                const int clipped = fy_lo > 0 || fy_hi < p->filter_h || fx_lo > 0 || fx_hi < p->filter_w;
                const int8_t start = (int8_t)(p->padded && clipped ? p->pad_value : -128);
                for (first = 0; first < channels; first += segment) {
                    const int32_t len = first + segment < channels ? segment : channels - first;
                    int32_t fy, fx, j;
                    for (j = 0; j < len; ++j) {
                        best[j] = start;
                    }
                    for (fy = fy_lo; fy < fy_hi; ++fy) {
                        for (fx = fx_lo; fx < fx_hi; ++fx) {
                            const uint32_t offset =
                                (uint32_t)(((n * p->input.h + y0 + fy) * p->input.w + x0 + fx) * channels + first);
                            const int8_t *run = vmcu_span(in, offset, (uint32_t)len);
                            for (j = 0; j < len; ++j) {
                                const int8_t v = run != 0 ? run[j] : vmcu_get(in, offset + (uint32_t)j);
                                if (v > best[j]) {
                                    best[j] = v;
                                }
                            }
                        }
                    }
                    for (j = 0; j < len; ++j) {
                        best[j] = (int8_t)vmcu_clamp(best[j], p->act_min, p->act_max);
                    }
                    vmcu_write(output, out_pixel + (uint32_t)first, best, (uint32_t)len);
                }
            }
        }
    }
    return VMCU_OK;
}

const vmcu_kernel vmcu_max_pool2d_s8_kernel = {
    .run = vmcu_max_pool2d_s8, .check = vmcu_pool2d_check, .digest = vmcu_pool2d_digest};
