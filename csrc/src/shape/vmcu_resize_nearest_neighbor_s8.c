/*
 * RESIZE_NEAREST_NEIGHBOR, int8: a gather of pixels (whole tensor: the output is apart).
 *
 * The source row and column of every output row and column were computed by the converter with
 * TFLite's float arithmetic, so the kernel only copies each output pixel's channels.
 */
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
    if (channels != p->input.c || p->output.n != p->input.n) {
        return VMCU_ERROR_BAD_MODEL;
    }
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
