/*
 * INVERTED_BOTTLENECK, int8: lead conv -> depthwise -> 1x1 project [-> ADD of the block input],
 * fused so that no intermediate tensor reaches the pool (vmcu_tflite/fusion.py).
 *
 * Iterations follow the planner's `fused_block` pattern: output rows, pixels, channel segments.
 * At the start of each output row the lead conv's rows that row's depthwise window needs are
 * computed into a ring in the step's workspace (as many rows as the window is tall); each output
 * pixel's depthwise values go to ctx->scratch[0, C_mid) and its projected channels, segment by
 * segment, to ctx->scratch[C_mid, C_mid + segment) before they are stored. Every multiply-
 * accumulate of the unfused layers happens exactly once. Rows and pixels are reached through
 * plain pointers (the dot products then take the DSP path of vmcu_dsp.h); only a pixel that
 * wraps around the end of the pool is read byte by byte.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu/vmcu_dsp.h"

#define MAX_TAPS 49 /* largest kernel_h * kernel_w of a lead conv or depthwise window (7 x 7) */

/* The in-bounds taps of a window at (y, x): pointers to their pixels (NULL if one wraps) and their filter index. */
typedef struct {
    const int8_t *pixel[MAX_TAPS];
    uint32_t offset[MAX_TAPS];
    int32_t index[MAX_TAPS];
    int32_t count;
    int32_t wraps;
} taps;

static void gather(const vmcu_view *src, int32_t ring_rows, int32_t rows, int32_t cols, int32_t channels,
                   int32_t kernel_h, int32_t kernel_w, int32_t y0, int32_t x0, taps *t)
{
    int32_t ky, kx;
    t->count = 0;
    t->wraps = 0;
    for (ky = 0; ky < kernel_h; ++ky) {
        const int32_t row = y0 + ky;
        if (row < 0 || row >= rows) {
            continue;
        }
        for (kx = 0; kx < kernel_w; ++kx) {
            const int32_t col = x0 + kx;
            uint32_t offset;
            if (col < 0 || col >= cols) {
                continue;
            }
            offset = (uint32_t)(((ring_rows > 0 ? row % ring_rows : row) * cols + col) * channels);
            t->offset[t->count] = offset;
            t->pixel[t->count] = vmcu_span(src, offset, (uint32_t)channels);
            t->wraps |= t->pixel[t->count] == 0;
            t->index[t->count] = ky * kernel_w + kx;
            ++t->count;
        }
    }
}

static int8_t requantize(const vmcu_requant *r, int32_t acc, int32_t c, int32_t output_offset)
{
    acc = vmcu_requantize(acc, r->multiplier[c], r->shift[c]) + output_offset;
    return (int8_t)vmcu_clamp(acc, r->act_min, r->act_max);
}

/* Lead conv output row `row`, pixel by pixel through `pixel` (C_mid bytes), into its ring slot. */
static void lead_row(const vmcu_conv_params *p, const vmcu_view *in, const vmcu_view *ring, int32_t ring_rows,
                     int32_t row, int8_t *pixel)
{
    const int32_t c_in = p->input.c, c_out = p->output.c, taps_per_c = p->kernel_h * p->kernel_w * c_in;
    int32_t x, c, k, i;
    taps t;
    for (x = 0; x < p->output.w; ++x) {
        gather(in, 0, p->input.h, p->input.w, c_in, p->kernel_h, p->kernel_w, row * p->stride_h - p->pad_h,
               x * p->stride_w - p->pad_w, &t);
        for (c = 0; c < c_out; ++c) {
            int32_t acc = p->bias ? p->bias[c] : 0;
            for (k = 0; k < t.count; ++k) {
                const int8_t *w = p->filter + c * taps_per_c + t.index[k] * c_in;
                if (t.pixel[k] != 0) {
                    acc = vmcu_dot_s8(t.pixel[k], w, c_in, p->input_offset, acc);
                } else {
                    for (i = 0; i < c_in; ++i) {
                        acc += ((int32_t)vmcu_get(in, t.offset[k] + (uint32_t)i) + p->input_offset) * w[i];
                    }
                }
            }
            pixel[c] = requantize(&p->requant, acc, c, p->output_offset);
        }
        vmcu_write(ring, (uint32_t)(((row % ring_rows) * p->output.w + x) * c_out), pixel, (uint32_t)c_out);
    }
}

/* The depthwise output pixel (y, x), every channel, into `mid`; rows from the ring or the input. */
static void depthwise_pixel(const vmcu_depthwise_params *p, const vmcu_view *src, int32_t ring_rows, int32_t y,
                            int32_t x, int8_t *mid)
{
    const int32_t channels = p->output.c;
    int32_t c = 0, k;
    taps t;
    gather(src, ring_rows, p->input.h, p->input.w, channels, p->kernel_h, p->kernel_w, y * p->stride_h - p->pad_h,
           x * p->stride_w - p->pad_w, &t);
#if VMCU_DSP
    if (!t.wraps) {
        const uint32_t offsets = vmcu_offset_pair(p->input_offset);
        for (; c + 4 <= channels; c += 4) {
            int32_t acc[4], j;
            for (j = 0; j < 4; ++j) {
                acc[j] = p->bias ? p->bias[c + j] : 0;
            }
            for (k = 0; k < t.count; ++k) {
                vmcu_mac4_s8(vmcu_load32(t.pixel[k] + c), vmcu_load32(p->filter + t.index[k] * channels + c), offsets,
                             acc);
            }
            for (j = 0; j < 4; ++j) {
                mid[c + j] = requantize(&p->requant, acc[j], c + j, p->output_offset);
            }
        }
    }
#endif
    for (; c < channels; ++c) {
        int32_t acc = p->bias ? p->bias[c] : 0;
        for (k = 0; k < t.count; ++k) {
            const int32_t v = t.pixel[k] != 0 ? t.pixel[k][c] : vmcu_get(src, t.offset[k] + (uint32_t)c);
            acc += (v + p->input_offset) * (int32_t)p->filter[t.index[k] * channels + c];
        }
        mid[c] = requantize(&p->requant, acc, c, p->output_offset);
    }
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
    if (segment < 1 || dw->kernel_h * dw->kernel_w > MAX_TAPS ||
        (p->lead != 0 && (p->ring_rows < dw->kernel_h || p->lead->kernel_h * p->lead->kernel_w > MAX_TAPS))) {
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
                lead_row(p->lead, in, &ring, p->ring_rows, computed + 1, mid);
            }
        }
        for (x = 0; x < project->output.w; ++x) {
            const uint32_t pixel = (uint32_t)((y * project->output.w + x) * c_out);
            depthwise_pixel(dw, p->lead != 0 ? &ring : in, p->lead != 0 ? p->ring_rows : 0, y, x, mid);
            for (first = 0; first < c_out; first += segment) {
                const int32_t last = first + segment < c_out ? first + segment : c_out;
                int32_t c;
                for (c = first; c < last; ++c) {
                    const int32_t acc = vmcu_dot_s8(mid, project->filter + c * c_mid, c_mid, project->input_offset,
                                                    project->bias ? project->bias[c] : 0);
                    int8_t value = requantize(&project->requant, acc, c, project->output_offset);
                    if (p->add != 0) {
                        const int32_t residual = vmcu_get(in, pixel + (uint32_t)c);
                        value = p->residual_first ? vmcu_add_pair(p->add, residual, value)
                                                  : vmcu_add_pair(p->add, value, residual);
                    }
                    seg[c - first] = value;
                }
                vmcu_write(output, pixel + (uint32_t)first, seg, (uint32_t)(last - first));
            }
        }
    }
    return VMCU_OK;
}
