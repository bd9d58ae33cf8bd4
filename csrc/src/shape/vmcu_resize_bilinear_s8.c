/*
 * RESIZE_BILINEAR, int8: TFLite's ResizeBilinearInteger (whole tensor: the output is apart).
 *
 * Each output value is the four raw neighbours weighted in 1/1024ths per axis, summed in int32
 * (at most 128 * 2048 * 2048 in magnitude, extrapolated half-pixel borders included) and
 * divided by 2^20, rounding half away from zero; the int8 cast wraps as TFLite's does.
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static int8_t interpolate(int32_t ll, int32_t lu, int32_t rl, int32_t ru, int32_t wy, int32_t wx)
{
    const int32_t one = 1 << 10;
    const int32_t total = ll * (one - wy) * (one - wx) + lu * wy * (one - wx) + rl * (one - wy) * wx + ru * wy * wx;
    const int32_t round = total > 0 ? (1 << 19) : -(1 << 19);
    return (int8_t)((total + round) / (1 << 20));
}

vmcu_status vmcu_resize_bilinear_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output)
{
    const vmcu_resize_bilinear_params *p = (const vmcu_resize_bilinear_params *)params;
    const int32_t channels = p->output.c, row_bytes = p->input.w * p->input.c;
    uint32_t out_offset = 0;
    int32_t n, y, x, c;
    (void)ctx;
    if (channels != p->input.c || p->output.n != p->input.n) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            const int32_t *row = &p->rows[3 * y];
            const uint32_t top = (uint32_t)((n * p->input.h + row[0]) * row_bytes);
            const uint32_t bottom = (uint32_t)((n * p->input.h + row[1]) * row_bytes);
            for (x = 0; x < p->output.w; ++x) {
                const int32_t *col = &p->cols[3 * x];
                const uint32_t left = (uint32_t)(col[0] * channels), right = (uint32_t)(col[1] * channels);
                for (c = 0; c < channels; ++c) {
                    const int8_t value = interpolate(
                        vmcu_get(&inputs[0], top + left + (uint32_t)c), vmcu_get(&inputs[0], bottom + left + (uint32_t)c),
                        vmcu_get(&inputs[0], top + right + (uint32_t)c), vmcu_get(&inputs[0], bottom + right + (uint32_t)c),
                        row[2], col[2]);
                    vmcu_put(output, out_offset++, value);
                }
            }
        }
    }
    return VMCU_OK;
}
