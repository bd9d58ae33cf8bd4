/*
 * CONV_2D, int8: TFLite's ConvPerChannel (grouped convolution included), segment by segment.
 *
 * Iterations (n, y, x, channel segment), as the planner's `windowed` and `rows` patterns: the
 * whole output segment is computed into ctx->scratch before it is stored, so the store may land
 * on input bytes this very iteration read (see vmcu_row_writer.h; a channel pair may straddle
 * two segments of a pixel, which read the same window).
 *
 * Only the taps inside the input are visited (their range is computed once per pixel). Output
 * channels go two at a time (same group), so each input run is loaded once for both; without
 * groups and x-dilation the taps of a kernel row are a single run, and a small window (stems:
 * few input channels) is gathered once per pixel so that each channel is one dot product. The dot products use the
 * DSP extension when the core has it (see vmcu_dsp.h).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu/vmcu_dsp.h"
#include "../vmcu_row_writer.h"

/* acc[0] (and acc[1] when f1 is not NULL) += the dot products of `len` input bytes from `offset`
 * on with f0 (f1). */
static void accumulate(const vmcu_view *in, uint32_t offset, const int8_t *f0, const int8_t *f1, int32_t len,
                       int32_t input_offset, int32_t acc[2])
{
    const int8_t *run = vmcu_span(in, offset, (uint32_t)len);
    int32_t i;
    if (run != 0) {
        if (f1 != 0) {
            vmcu_dot2_s8(run, f0, f1, len, input_offset, acc);
        } else {
            acc[0] = vmcu_dot_s8(run, f0, len, input_offset, acc[0]);
        }
        return;
    }
    for (i = 0; i < len; ++i) { /* the run wraps around the end of the pool: rare, byte by byte */
        const int32_t v = (int32_t)vmcu_get(in, offset + (uint32_t)i) + input_offset;
        acc[0] += v * (int32_t)f0[i];
        if (f1 != 0) {
            acc[1] += v * (int32_t)f1[i];
        }
    }
}

/* Small windows of a single-group convolution are gathered once per output pixel (im2col):
 * [K_h][K_w][C_in] like a filter row, taps outside the input set to the input zero point so
 * that they add exactly 0. Each output channel is then one dot product. */
#define WINDOW_BYTES 128

static void gather_window(const vmcu_conv_params *p, const vmcu_view *in, int32_t n, int32_t in_y0, int32_t in_x0,
                          int32_t ky_lo, int32_t ky_hi, int32_t kx_lo, int32_t kx_hi, int8_t *window)
{
    const int32_t c_in = p->input.c, row_bytes = p->kernel_w * c_in;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    int32_t ky, kx;
    for (ky = 0; ky < p->kernel_h; ++ky) {
        int8_t *dst = window + ky * row_bytes;
        int32_t row;
        if (ky < ky_lo || ky >= ky_hi || kx_lo >= kx_hi) {
            memset(dst, zero_point, (size_t)row_bytes);
            continue;
        }
        row = (n * p->input.h + in_y0 + ky * p->dilation_h) * p->input.w;
        memset(dst, zero_point, (size_t)(kx_lo * c_in));
        memset(dst + kx_hi * c_in, zero_point, (size_t)((p->kernel_w - kx_hi) * c_in));
        if (p->dilation_w == 1) {
            vmcu_read(in, (uint32_t)((row + in_x0 + kx_lo) * c_in), dst + kx_lo * c_in, (uint32_t)((kx_hi - kx_lo) * c_in));
        } else {
            for (kx = kx_lo; kx < kx_hi; ++kx) {
                vmcu_read(in, (uint32_t)((row + in_x0 + kx * p->dilation_w) * c_in), dst + kx * c_in, (uint32_t)c_in);
            }
        }
    }
}

vmcu_status vmcu_conv2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_conv_params *p = (const vmcu_conv_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t c_in = p->input.c, c_out = p->output.c, fc = p->filter_c;
    const int32_t groups = fc > 0 ? c_in / fc : 0;
    const int32_t per_group = groups > 0 ? c_out / groups : 0;
    const int32_t filter_stride = p->kernel_h * p->kernel_w * fc; /* bytes per output channel */
    /* Without groups and dilation along x, the in-bounds taps of a kernel row are one run of the
     * input and one run of the filter: a single dot product per row. */
    const int merge_row = fc == c_in && p->dilation_w == 1;
    const int gather = fc == c_in && filter_stride <= WINDOW_BYTES && p->kernel_h * p->kernel_w > 1;
    int8_t window[WINDOW_BYTES];
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t n, y, x;
    if (segment < 1 || groups < 1 || per_group < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            const int32_t in_y0 = y * p->stride_h - p->pad_h;
            int32_t ky_lo, ky_hi;
            vmcu_tap_range(in_y0, p->input.h, p->kernel_h, p->dilation_h, &ky_lo, &ky_hi);
            for (x = 0; x < p->output.w; ++x) {
                const int32_t in_x0 = x * p->stride_w - p->pad_w;
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * c_out);
                int32_t kx_lo, kx_hi;
                vmcu_row_writer out;
                int32_t c = 0;
                vmcu_tap_range(in_x0, p->input.w, p->kernel_w, p->dilation_w, &kx_lo, &kx_hi);
                vmcu_row_begin(&out, ctx, output, out_pixel, c_out);
                if (gather) {
                    gather_window(p, in, n, in_y0, in_x0, ky_lo, ky_hi, kx_lo, kx_hi, window);
                }
                while (c < c_out) { /* channels by pairs of the same group, stored segment by segment */
                    const int32_t group = c / per_group;
                    const int32_t pair = c + 1 < c_out && (c + 1) / per_group == group;
                    const int8_t *filter0 = p->filter + c * filter_stride;
                    int32_t acc[2];
                    int32_t ky, kx, k;
                    acc[0] = p->bias ? p->bias[c] : 0;
                    acc[1] = pair && p->bias ? p->bias[c + 1] : 0;
                    if (gather && pair) {
                        vmcu_dot2_s8(window, filter0, filter0 + filter_stride, filter_stride, p->input_offset, acc);
                    } else if (gather) {
                        acc[0] = vmcu_dot_s8(window, filter0, filter_stride, p->input_offset, acc[0]);
                    }
                    for (ky = ky_lo; ky < ky_hi && kx_lo < kx_hi && !gather; ++ky) {
                        const int32_t row = (n * p->input.h + in_y0 + ky * p->dilation_h) * p->input.w;
                        const int8_t *f0 = filter0 + ky * p->kernel_w * fc;
                        if (merge_row) {
                            accumulate(in, (uint32_t)((row + in_x0 + kx_lo) * c_in), f0 + kx_lo * fc,
                                       pair ? f0 + kx_lo * fc + filter_stride : (const int8_t *)0,
                                       (kx_hi - kx_lo) * fc, p->input_offset, acc);
                            continue;
                        }
                        for (kx = kx_lo; kx < kx_hi; ++kx) {
                            accumulate(in, (uint32_t)((row + in_x0 + kx * p->dilation_w) * c_in + group * fc),
                                       f0 + kx * fc, pair ? f0 + kx * fc + filter_stride : (const int8_t *)0, fc,
                                       p->input_offset, acc);
                        }
                    }
                    for (k = 0; k <= pair; ++k) {
                        const int32_t v = vmcu_requantize(acc[k], p->requant.multiplier[c + k], p->requant.shift[c + k]) +
                                          p->output_offset;
                        vmcu_row_put(&out, (int8_t)vmcu_clamp(v, p->requant.act_min, p->requant.act_max));
                    }
                    c += 1 + pair;
                }
            }
        }
    }
    return VMCU_OK;
}
