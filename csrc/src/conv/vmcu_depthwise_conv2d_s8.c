/*
 * DEPTHWISE_CONV_2D, int8: TFLite's DepthwiseConvPerChannel (any depth multiplier).
 *
 * Segment and whole-tensor modes: iterations (n, y, x, channel segment), as the planner's
 * `windowed` pattern; each output segment is computed into ctx->scratch, then stored.
 *
 * In-place mode (depth multiplier 1, the output at the input's base): channel segment by channel
 * segment, the segment's plane of the input (every pixel, those channels) is copied to the
 * step's workspace, pixel-major; then the output pixels of those channels are computed from the
 * workspace and stored at their NHWC places, which hold only input bytes already copied.
 *
 * Only the taps inside the input are visited (their range is computed once per pixel), and a
 * window that does not wrap around the end of the pool is read as plain memory. With the DSP
 * extension, four channels go at once: one word of input and one of filter per tap,
 * SMLABB/SMLATT into four accumulators (see vmcu_dsp.h).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu/vmcu_dsp.h"

/* Where the input is read from: the input tensor, or a channel plane in the workspace. */
typedef struct {
    const vmcu_view *view;
    int32_t pixel_bytes;   /* bytes per pixel */
    int32_t first_channel; /* input channel stored at byte 0 of a pixel */
} source;

static int8_t finish(const vmcu_depthwise_params *p, int32_t c, int32_t acc)
{
    const int32_t v = vmcu_requantize(acc, p->requant.multiplier[c], p->requant.shift[c]) + p->output_offset;
    return (int8_t)vmcu_clamp(v, p->requant.act_min, p->requant.act_max);
}

/* Output channels [first, last) of output pixel (n, y, x) into out[0 .. last - first). */
static void compute_pixel(const vmcu_depthwise_params *p, const source *src, int32_t n, int32_t y, int32_t x,
                          int32_t first, int32_t last, int8_t *out)
{
    const int32_t in_y0 = y * p->stride_h - p->pad_h, in_x0 = x * p->stride_w - p->pad_w;
    const int32_t c_out = p->output.c, multiplier = p->depth_multiplier, k_w = p->kernel_w;
    const int32_t pixel = src->pixel_bytes;
    const int32_t row_step = p->dilation_h * p->input.w * pixel, col_step = p->dilation_w * pixel;
    const int32_t first_in = first / multiplier; /* input channel of output channel `first` */
    const int8_t *window = 0; /* tap (ky_lo, kx_lo), input channel first_in, when nothing wraps */
    uint32_t window_offset = 0;
    int32_t ky_lo, ky_hi, kx_lo, kx_hi, ky, kx;
    int32_t c = first;
    vmcu_tap_range(in_y0, p->input.h, p->kernel_h, p->dilation_h, &ky_lo, &ky_hi);
    vmcu_tap_range(in_x0, p->input.w, k_w, p->dilation_w, &kx_lo, &kx_hi);
    if (ky_lo < ky_hi && kx_lo < kx_hi) {
        const int32_t top = (n * p->input.h + in_y0 + ky_lo * p->dilation_h) * p->input.w + in_x0 + kx_lo * p->dilation_w;
        const int32_t span = (ky_hi - 1 - ky_lo) * row_step + (kx_hi - 1 - kx_lo) * col_step +
                             (last - 1) / multiplier - first_in + 1;
        window_offset = (uint32_t)(top * pixel + first_in - src->first_channel);
        window = vmcu_span(src->view, window_offset, (uint32_t)span);
    }
#if VMCU_DSP
    if (multiplier == 1 && window != 0) { /* four channels per word, the window as plain memory */
        const uint32_t offsets = vmcu_offset_pair(p->input_offset);
        for (; c + 4 <= last; c += 4) {
            int32_t acc[4];
            int32_t k;
            for (k = 0; k < 4; ++k) {
                acc[k] = p->bias ? p->bias[c + k] : 0;
            }
            for (ky = ky_lo; ky < ky_hi; ++ky) {
                const int8_t *in_row = window + (ky - ky_lo) * row_step + (c - first);
                const int8_t *filter_row = p->filter + ky * k_w * c_out + c;
                for (kx = kx_lo; kx < kx_hi; ++kx) {
                    vmcu_mac4_s8(vmcu_load32(in_row + (kx - kx_lo) * col_step), vmcu_load32(filter_row + kx * c_out),
                                 offsets, acc);
                }
            }
            for (k = 0; k < 4; ++k) {
                out[c + k - first] = finish(p, c + k, acc[k]);
            }
        }
    }
#endif
    for (; c < last; ++c) {
        const int32_t channel = c / multiplier - first_in; /* byte of its input channel after the window's */
        int32_t acc = p->bias ? p->bias[c] : 0;
        for (ky = ky_lo; ky < ky_hi; ++ky) {
            const int8_t *filter_row = p->filter + ky * k_w * c_out + c;
            const int32_t row = (ky - ky_lo) * row_step + channel;
            for (kx = kx_lo; kx < kx_hi; ++kx) {
                const int32_t at = row + (kx - kx_lo) * col_step;
                const int32_t v = window != 0 ? window[at] : vmcu_get(src->view, window_offset + (uint32_t)at);
                acc += (v + p->input_offset) * (int32_t)filter_row[kx * c_out];
            }
        }
        out[c - first] = finish(p, c, acc);
    }
}

/* Every output pixel of channels [first, last), stored at their NHWC places. */
static void compute_channels(const vmcu_context *ctx, const vmcu_depthwise_params *p, const source *src,
                             const vmcu_view *output, int32_t first, int32_t last)
{
    int32_t n, y, x;
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            for (x = 0; x < p->output.w; ++x) {
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * p->output.c);
                compute_pixel(p, src, n, y, x, first, last, ctx->scratch);
                if (last - first == 1) { /* one channel per plane: a byte, not two memmove */
                    vmcu_put(output, out_pixel + (uint32_t)first, ctx->scratch[0]);
                } else {
                    vmcu_write(output, out_pixel + (uint32_t)first, ctx->scratch, (uint32_t)(last - first));
                }
            }
        }
    }
}

vmcu_status vmcu_depthwise_conv2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                     const vmcu_view *output)
{
    const vmcu_depthwise_params *p = (const vmcu_depthwise_params *)params;
    const int32_t c_out = p->output.c;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t first;
    if (segment < 1 || p->depth_multiplier < 1 || c_out != p->input.c * p->depth_multiplier) {
        return VMCU_ERROR_BAD_MODEL;
    }
    if (ctx->step->mode == VMCU_MODE_IN_PLACE) {
        const int32_t pixels = p->input.n * p->input.h * p->input.w;
        vmcu_view workspace;
        if (p->depth_multiplier != 1) {
            return VMCU_ERROR_BAD_MODEL;
        }
        workspace.pool = ctx->pool;
        workspace.size = ctx->pool_size;
        workspace.base = ctx->step->workspace;
        for (first = 0; first < c_out; first += segment) {
            const int32_t last = first + segment < c_out ? first + segment : c_out;
            const int32_t len = last - first;
            source plane;
            int32_t pixel;
            for (pixel = 0; pixel < pixels; ++pixel) { /* the plane, pixel-major: [pixel][len] */
                const uint32_t from = (uint32_t)(pixel * p->input.c + first), to = (uint32_t)(pixel * len);
                if (len == 1) {
                    vmcu_put(&workspace, to, vmcu_get(&inputs[0], from));
                } else {
                    vmcu_copy(&workspace, to, &inputs[0], from, (uint32_t)len);
                }
            }
            plane.view = &workspace;
            plane.pixel_bytes = len;
            plane.first_channel = first;
            compute_channels(ctx, p, &plane, output, first, last);
        }
    } else { /* (n, y, x, channel segment): the segment loop is innermost */
        source whole;
        int32_t n, y, x;
        whole.view = &inputs[0];
        whole.pixel_bytes = p->input.c;
        whole.first_channel = 0;
        for (n = 0; n < p->output.n; ++n) {
            for (y = 0; y < p->output.h; ++y) {
                for (x = 0; x < p->output.w; ++x) {
                    const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * c_out);
                    for (first = 0; first < c_out; first += segment) {
                        const int32_t last = first + segment < c_out ? first + segment : c_out;
                        compute_pixel(p, &whole, n, y, x, first, last, ctx->scratch);
                        vmcu_write(output, out_pixel + (uint32_t)first, ctx->scratch, (uint32_t)(last - first));
                    }
                }
            }
        }
    }
    return VMCU_OK;
}
