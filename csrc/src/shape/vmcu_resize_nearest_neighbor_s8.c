/*
 * RESIZE_NEAREST_NEIGHBOR, int8: a gather of pixels (whole tensor: the output is apart).
 *
 * The source row and column of every output row and column were computed by the converter with
 * TFLite's float arithmetic, so the kernel only copies each output pixel's channels.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_resize_nearest_neighbor_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                            const vmcu_view *output)
{
    const vmcu_resize_params *p = (const vmcu_resize_params *)params;
    const int32_t channels = p->output.c;
    uint32_t out_offset = 0;
    int32_t n, y, x;
    (void)ctx;
    for (n = 0; n < p->output.n; ++n) {
        for (y = 0; y < p->output.h; ++y) {
            const int32_t in_row = n * p->input.h + p->source_y[y];
            for (x = 0; x < p->output.w; ++x) {
                const uint32_t in_offset = (uint32_t)((in_row * p->input.w + p->source_x[x]) * channels);
                vmcu_copy(output, out_offset, &inputs[0], in_offset, (uint32_t)channels);
                out_offset += (uint32_t)channels;
            }
        }
    }
    return VMCU_OK;
}

/* 1 when each of the `count` source indices is within 0 .. size - 1. */
static int sources_within(const int32_t *sources, int32_t count, int32_t size)
{
    int32_t i;
    for (i = 0; i < count; ++i) {
        if (!vmcu_in_range(sources[i], 0, size - 1)) {
            return 0;
        }
    }
    return 1;
}

/*
 * Both shapes exactly their tensors' bytes, the same batch and channels, and every source row and
 * column of the tables (output.h and output.w long, as the converter emits them) inside the input.
 */
static vmcu_status resize_nearest_neighbor_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_resize_params *p = (const vmcu_resize_params *)step->params;
    if (!vmcu_nhwc_ok(model, step, &p->input, &p->output) || p->output.c != p->input.c || p->source_y == 0 || p->source_x == 0 || !sources_within(p->source_y, p->output.h, p->input.h) ||
        !sources_within(p->source_x, p->output.w, p->input.w)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

static uint32_t resize_nearest_neighbor_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_resize_params *p = (const vmcu_resize_params *)step->params;
    crc = vmcu_dims_digest(vmcu_dims_digest(crc, &p->input), &p->output);
    crc = vmcu_crc32(crc, p->source_y, (uint32_t)p->output.h * 4u);
    return vmcu_crc32(crc, p->source_x, (uint32_t)p->output.w * 4u);
}

const vmcu_kernel vmcu_resize_nearest_neighbor_s8_kernel = {
    .run = vmcu_resize_nearest_neighbor_s8, .check = resize_nearest_neighbor_check, .digest = resize_nearest_neighbor_digest};
