/*
 * RESIZE_BILINEAR, int8: TFLite's ResizeBilinearInteger (whole tensor: the output is apart).
 *
 * Each output value is the four raw neighbours weighted in 1/1024ths per axis, summed in int32 and
 * divided by 2^20, rounding half away from zero; the int8 cast wraps as TFLite's does. The
 * converter's weights lie in -512 .. 1023 (extrapolated half-pixel borders included); the check
 * allows -1024 .. 1024, where the sum stays below 128 * 3072 * 3072 < 2^31 - 2^19 in magnitude.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#define BILINEAR_ONE 1024 /* a weight of one whole pixel */

static int8_t interpolate(int32_t ll, int32_t lu, int32_t rl, int32_t ru, int32_t wy, int32_t wx)
{
    const int32_t one = BILINEAR_ONE;
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

/* 1 when each of the `count` {first, second, weight} entries has both sources within 0 .. size - 1
 * and a weight within one pixel either side of 0 (what the interpolation's int32 sum takes). */
static int interpolation_within(const int32_t *entries, int32_t count, int32_t size)
{
    int32_t i;
    for (i = 0; i < count; ++i) {
        const int32_t *e = &entries[3 * i];
        if (!vmcu_in_range(e[0], 0, size - 1) || !vmcu_in_range(e[1], 0, size - 1) ||
            !vmcu_in_range(e[2], -BILINEAR_ONE, BILINEAR_ONE)) {
            return 0;
        }
    }
    return 1;
}

/*
 * Both shapes exactly their tensors' bytes, the same batch and channels, and every entry of the
 * row and column tables ([output.h][3] and [output.w][3], as the converter emits them, indexed in
 * int32) inside the input with a weight the arithmetic takes.
 */
static vmcu_status resize_bilinear_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_resize_bilinear_params *p = (const vmcu_resize_bilinear_params *)step->params;
    if (!vmcu_nhwc_ok(model, step, &p->input, &p->output) || p->output.c != p->input.c || p->rows == 0 || p->cols == 0 || vmcu_times(p->output.h, 3) == 0u || vmcu_times(p->output.w, 3) == 0u ||
        !interpolation_within(p->rows, p->output.h, p->input.h) ||
        !interpolation_within(p->cols, p->output.w, p->input.w)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t resize_bilinear_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_resize_bilinear_params *p = (const vmcu_resize_bilinear_params *)step->params;
    crc = vmcu_dims_digest(vmcu_dims_digest(crc, &p->input), &p->output);
    crc = vmcu_crc32(crc, p->rows, (uint32_t)p->output.h * 3u * 4u);
    return vmcu_crc32(crc, p->cols, (uint32_t)p->output.w * 3u * 4u);
}

const vmcu_kernel vmcu_resize_bilinear_s8_kernel = {
    .run = vmcu_resize_bilinear_s8, .check = resize_bilinear_check, .digest = resize_bilinear_digest};
