/*
 * INVERTED_BOTTLENECK, int8: lead conv -> depthwise -> 1x1 project [-> ADD of the block input],
 * fused so that no intermediate tensor reaches the pool (vmcu_tflite/fusion.py).
 *
 * Iterations follow the planner's `fused_block` pattern: output rows, pixels, channel segments.
 * At the start of each output row the lead conv's rows that row's depthwise window needs are
 * computed into a ring in the step's workspace (as many rows as the window is tall); each output
 * pixel's depthwise values go to ctx->scratch[0, C_mid) and its projected channels, segment by
 * segment, to ctx->scratch[C_mid, C_mid + segment) before they are stored. Every multiply-
 * accumulate of the unfused layers happens exactly once.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* One output channel of a convolution at pixel (y, x): bias + sum of (input + offset) * filter. */
static int32_t conv_at(const vmcu_conv_params *p, const vmcu_view *in, int32_t y, int32_t x, int32_t c)
{
    int32_t acc = p->bias ? p->bias[c] : 0;
    int32_t ky, kx, i;
    for (ky = 0; ky < p->kernel_h; ++ky) {
        const int32_t in_y = y * p->stride_h - p->pad_h + ky;
        if (in_y < 0 || in_y >= p->input.h) {
            continue;
        }
        for (kx = 0; kx < p->kernel_w; ++kx) {
            const int32_t in_x = x * p->stride_w - p->pad_w + kx;
            const int8_t *filter = p->filter + ((c * p->kernel_h + ky) * p->kernel_w + kx) * p->input.c;
            const uint32_t offset = (uint32_t)((in_y * p->input.w + in_x) * p->input.c);
            const int8_t *run;
            if (in_x < 0 || in_x >= p->input.w) {
                continue;
            }
            run = vmcu_span(in, offset, (uint32_t)p->input.c);
            if (run != 0) {
                for (i = 0; i < p->input.c; ++i) {
                    acc += ((int32_t)run[i] + p->input_offset) * (int32_t)filter[i];
                }
            } else {
                for (i = 0; i < p->input.c; ++i) {
                    acc += ((int32_t)vmcu_get(in, offset + (uint32_t)i) + p->input_offset) * (int32_t)filter[i];
                }
            }
        }
    }
    acc = vmcu_requantize(acc, p->requant.multiplier[c], p->requant.shift[c]) + p->output_offset;
    return vmcu_clamp(acc, p->requant.act_min, p->requant.act_max);
}

/* Lead conv output row `row` into its ring slot. */
static void lead_row(const vmcu_conv_params *p, const vmcu_view *in, const vmcu_view *ring, int32_t ring_rows,
                     int32_t row)
{
    const uint32_t row_bytes = (uint32_t)(p->output.w * p->output.c);
    const uint32_t slot = (uint32_t)(row % ring_rows) * row_bytes;
    int32_t x, c;
    for (x = 0; x < p->output.w; ++x) {
        for (c = 0; c < p->output.c; ++c) {
            vmcu_put(ring, slot + (uint32_t)(x * p->output.c + c), (int8_t)conv_at(p, in, row, x, c));
        }
    }
}

/* The depthwise output pixel (y, x), all channels, into `mid`. Rows come from the ring or the input. */
static void depthwise_pixel(const vmcu_depthwise_params *p, const vmcu_view *src, int32_t ring_rows, int32_t y,
                            int32_t x, int8_t *mid)
{
    const int32_t channels = p->output.c;
    const uint32_t row_bytes = (uint32_t)(p->input.w * channels);
    int32_t c, ky, kx;
    for (c = 0; c < channels; ++c) {
        int32_t acc = p->bias ? p->bias[c] : 0;
        for (ky = 0; ky < p->kernel_h; ++ky) {
            const int32_t in_y = y * p->stride_h - p->pad_h + ky;
            uint32_t row;
            if (in_y < 0 || in_y >= p->input.h) {
                continue;
            }
            row = (uint32_t)(ring_rows > 0 ? in_y % ring_rows : in_y) * row_bytes;
            for (kx = 0; kx < p->kernel_w; ++kx) {
                const int32_t in_x = x * p->stride_w - p->pad_w + kx;
                if (in_x < 0 || in_x >= p->input.w) {
                    continue;
                }
                acc += ((int32_t)vmcu_get(src, row + (uint32_t)(in_x * channels + c)) + p->input_offset) *
                       (int32_t)p->filter[(ky * p->kernel_w + kx) * channels + c];
            }
        }
        acc = vmcu_requantize(acc, p->requant.multiplier[c], p->requant.shift[c]) + p->output_offset;
        mid[c] = (int8_t)vmcu_clamp(acc, p->requant.act_min, p->requant.act_max);
    }
}

/* TFLite's integer ADD of one pair of values. */
static int8_t add_values(const vmcu_elementwise_params *p, int32_t a, int32_t b)
{
    const int32_t scale = (int32_t)1 << p->left_shift;
    const int32_t s1 = vmcu_rdbpot(vmcu_srdhm((a + p->input1_offset) * scale, p->input1_multiplier), -p->input1_shift);
    const int32_t s2 = vmcu_rdbpot(vmcu_srdhm((b + p->input2_offset) * scale, p->input2_multiplier), -p->input2_shift);
    const int32_t v = vmcu_rdbpot(vmcu_srdhm(vmcu_add_wrap(s1, s2), p->output_multiplier), -p->output_shift) +
                      p->output_offset;
    return (int8_t)vmcu_clamp(v, p->act_min, p->act_max);
}

vmcu_status vmcu_inverted_bottleneck_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                        const vmcu_view *output)
{
    const vmcu_inverted_bottleneck_params *p = (const vmcu_inverted_bottleneck_params *)params;
    const vmcu_depthwise_params *dw = p->depthwise;
    const vmcu_conv_params *project = p->project;
    const vmcu_view *in = &inputs[0];
    const int32_t c_mid = dw->output.c, c_out = project->output.c;
    const int32_t segment = (int32_t)ctx->step->segment;
    int8_t *mid = ctx->scratch, *seg = ctx->scratch + c_mid;
    vmcu_view ring;
    int32_t y, x, first, computed = -1;
    if (segment < 1 || (p->lead != 0 && p->ring_rows < dw->kernel_h)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    ring.pool = ctx->pool;
    ring.size = ctx->pool_size;
    ring.base = ctx->step->workspace;
    for (y = 0; y < project->output.h; ++y) {
        if (p->lead != 0) {
            int32_t last = y * dw->stride_h - dw->pad_h + dw->kernel_h - 1;
            if (last > dw->input.h - 1) {
                last = dw->input.h - 1;
            }
            for (; computed < last; ++computed) {
                lead_row(p->lead, in, &ring, p->ring_rows, computed + 1);
            }
        }
        for (x = 0; x < project->output.w; ++x) {
            const uint32_t pixel = (uint32_t)((y * project->output.w + x) * c_out);
            depthwise_pixel(dw, p->lead != 0 ? &ring : in, p->lead != 0 ? p->ring_rows : 0, y, x, mid);
            for (first = 0; first < c_out; first += segment) {
                const int32_t last = first + segment < c_out ? first + segment : c_out;
                int32_t c, i;
                for (c = first; c < last; ++c) {
                    const int8_t *w = project->filter + c * c_mid;
                    int32_t acc = project->bias ? project->bias[c] : 0;
                    for (i = 0; i < c_mid; ++i) {
                        acc += ((int32_t)mid[i] + project->input_offset) * (int32_t)w[i];
                    }
                    acc = vmcu_requantize(acc, project->requant.multiplier[c], project->requant.shift[c]) +
                          project->output_offset;
                    seg[c - first] = (int8_t)vmcu_clamp(acc, project->requant.act_min, project->requant.act_max);
                    if (p->add != 0) {
                        const int32_t residual = vmcu_get(in, pixel + (uint32_t)c);
                        seg[c - first] = p->residual_first ? add_values(p->add, residual, seg[c - first])
                                                           : add_values(p->add, seg[c - first], residual);
                    }
                }
                vmcu_write(output, pixel + (uint32_t)first, seg, (uint32_t)(last - first));
            }
        }
    }
    return VMCU_OK;
}
