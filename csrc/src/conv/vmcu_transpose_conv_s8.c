/*
 * TRANSPOSE_CONV, int8 (whole tensor: the output is apart): TFLite's TransposeConv as a gather.
 *
 * Output pixel (y, x) receives filter tap (ky, kx) of input pixel ((y + pad_h - ky) / stride_h,
 * (x + pad_w - kx) / stride_w) when both divisions are exact and inside the input. TFLite scatters
 * the same products into an int32 buffer of the whole output; summing them per output pixel gives
 * the same int32 bits without the buffer. Then bias, per-channel requantization and clamp.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* The input row (or column) that tap k feeds into output position o, or -1. */
static int32_t source(int32_t o, int32_t pad, int32_t k, int32_t stride, int32_t size)
{
    const int32_t t = o + pad - k;
    if (t < 0 || t % stride != 0 || t / stride >= size) {
        return -1;
    }
    return t / stride;
}

vmcu_status vmcu_transpose_conv_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                   const vmcu_view *output)
{
    const vmcu_transpose_conv_params *p = (const vmcu_transpose_conv_params *)params;
    const int32_t c_in = p->input.c, c_out = p->output.c, taps = p->filter_h * p->filter_w;
    uint32_t out_offset = 0;
    int32_t n, y, x, co;
    (void)ctx;
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            for (x = 0; x < p->output.w; ++x) {
                for (co = 0; co < c_out; ++co) {
                    int32_t acc = 0, ky, kx, ci, v;
                    for (ky = 0; ky < p->filter_h; ++ky) {
                        const int32_t iy = source(y, p->pad_h, ky, p->stride_h, p->input.h);
                        if (iy < 0) {
                            continue;
                        }
                        for (kx = 0; kx < p->filter_w; ++kx) {
                            const int32_t ix = source(x, p->pad_w, kx, p->stride_w, p->input.w);
                            const int8_t *w = p->filter + ((co * taps) + ky * p->filter_w + kx) * c_in;
                            const int8_t *pixel;
                            uint32_t in_offset;
                            if (ix < 0) {
                                continue;
                            }
                            in_offset = (uint32_t)(((n * p->input.h + iy) * p->input.w + ix) * c_in);
                            pixel = vmcu_span(&inputs[0], in_offset, (uint32_t)c_in);
                            for (ci = 0; ci < c_in; ++ci) { /* a pixel that wraps around the pool: byte by byte */
                                const int32_t x = pixel != 0 ? pixel[ci] : vmcu_get(&inputs[0], in_offset + (uint32_t)ci);
                                acc = vmcu_add_wrap(acc, (x + p->input_offset) * w[ci]);
                            }
                        }
                    }
                    acc = vmcu_add_wrap(acc, p->bias[co]);
                    v = vmcu_requantize(acc, p->requant.multiplier[co], p->requant.shift[co]) + p->output_offset;
                    vmcu_put(output, out_offset++, (int8_t)vmcu_clamp(v, p->requant.act_min, p->requant.act_max));
                }
            }
        }
    }
    return VMCU_OK;
}

/*
 * Both shapes exactly their tensors' bytes and the same batch; the filter's shape [C_out][K_h][K_w]
 * [C_in] exactly its emitted length (the bias and the requantization arrays are C_out long); strides
 * of at least 1 and paddings from 0 up to what an output row or column index can be added to
 * without overflow. The per-channel multipliers and shifts are constants, like the weights: covered
 * by vmcu_verify_model(), as for the generated layers.
 */
static vmcu_status transpose_conv_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_transpose_conv_params *p = (const vmcu_transpose_conv_params *)step->params;
    const int32_t filter_shape[4] = {p->output.c, p->filter_h, p->filter_w, p->input.c};
    const uint32_t filter_length = vmcu_product(filter_shape, 4);
    if (!vmcu_nhwc_ok(model, step, &p->input, &p->output) || filter_length == 0u ||
        filter_length != (uint32_t)p->filter_length || p->filter == 0 || p->bias == 0 ||
        p->requant.multiplier == 0 || p->requant.shift == 0 || p->stride_h < 1 || p->stride_w < 1 ||
        !vmcu_in_range(p->pad_h, 0, INT32_MAX - p->output.h) || !vmcu_in_range(p->pad_w, 0, INT32_MAX - p->output.w) ||
        !vmcu_layer_ok(p->input_offset, p->output_offset, &p->requant)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t transpose_conv_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_transpose_conv_params *p = (const vmcu_transpose_conv_params *)step->params;
    const int32_t fields[15] = {p->input.n,  p->input.h,  p->input.w,  p->input.c,  p->output.n,
                                p->output.h, p->output.w, p->output.c, p->filter_h, p->filter_w,
                                p->stride_h, p->stride_w, p->pad_h,    p->pad_w,    p->filter_length};
    crc = vmcu_crc32_i32s(crc, fields, 15u);
    return vmcu_layer_digest(crc, p->input_offset, p->output_offset, p->filter, (uint32_t)p->filter_length, p->bias,
                             (uint32_t)p->output.c, 4u, &p->requant);
}

const vmcu_kernel vmcu_transpose_conv_s8_kernel = {
    .run = vmcu_transpose_conv_s8, .check = transpose_conv_check, .digest = transpose_conv_digest};
