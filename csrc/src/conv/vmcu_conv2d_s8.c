/*
 * CONV_2D, int8: TFLite's ConvPerChannel (grouped convolution included), segment by segment.
 *
 * Iterations (n, y, x, channel segment), as the planner's `windowed` and `rows` patterns: the
 * whole output segment is computed into ctx->scratch before it is stored, so the store may land
 * on input bytes this very iteration read.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* Sum of (input + offset) * filter over `len` bytes of the input from `offset` on. */
static int32_t dot_s8(const vmcu_view *in, uint32_t offset, const int8_t *filter, int32_t len, int32_t input_offset)
{
    const int8_t *run = vmcu_span(in, offset, (uint32_t)len);
    int32_t acc = 0;
    int32_t i;
    if (run != 0) {
        for (i = 0; i < len; ++i) {
            acc += ((int32_t)run[i] + input_offset) * (int32_t)filter[i];
        }
    } else { /* the run wraps around the end of the pool: rare, byte by byte */
        for (i = 0; i < len; ++i) {
            acc += ((int32_t)vmcu_get(in, offset + (uint32_t)i) + input_offset) * (int32_t)filter[i];
        }
    }
    return acc;
}

vmcu_status vmcu_conv2d_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_conv_params *p = (const vmcu_conv_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t c_in = p->input.c, c_out = p->output.c;
    const int32_t groups = c_in / p->filter_c, per_group = c_out / groups;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t n, y, x, first;
    if (segment < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            for (x = 0; x < p->output.w; ++x) {
                const uint32_t out_pixel = (uint32_t)(((n * p->output.h + y) * p->output.w + x) * c_out);
                for (first = 0; first < c_out; first += segment) {
                    const int32_t last = first + segment < c_out ? first + segment : c_out;
                    int32_t c;
                    for (c = first; c < last; ++c) {
                        const int32_t group = c / per_group;
                        int32_t acc = p->bias ? p->bias[c] : 0;
                        int32_t ky, kx;
                        for (ky = 0; ky < p->kernel_h; ++ky) {
                            const int32_t in_y = y * p->stride_h - p->pad_h + ky * p->dilation_h;
                            if (in_y < 0 || in_y >= p->input.h) {
                                continue;
                            }
                            for (kx = 0; kx < p->kernel_w; ++kx) {
                                const int32_t in_x = x * p->stride_w - p->pad_w + kx * p->dilation_w;
                                uint32_t offset;
                                if (in_x < 0 || in_x >= p->input.w) {
                                    continue;
                                }
                                offset = (uint32_t)(((n * p->input.h + in_y) * p->input.w + in_x) * c_in +
                                                    group * p->filter_c);
                                acc += dot_s8(in, offset,
                                              p->filter + ((c * p->kernel_h + ky) * p->kernel_w + kx) * p->filter_c,
                                              p->filter_c, p->input_offset);
                            }
                        }
                        acc = vmcu_requantize(acc, p->requant.multiplier[c], p->requant.shift[c]) + p->output_offset;
                        ctx->scratch[c - first] = (int8_t)vmcu_clamp(acc, p->requant.act_min, p->requant.act_max);
                    }
                    vmcu_write(output, out_pixel + (uint32_t)first, ctx->scratch, (uint32_t)(last - first));
                }
            }
        }
    }
    return VMCU_OK;
}
