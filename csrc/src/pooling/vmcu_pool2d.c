/*
 * vmcu-tflite runtime: the check and the digest of vmcu_pool_params (vmcu_pool2d.h).
 */
#include "vmcu/vmcu_check.h"

#include "vmcu_pool2d.h"

/*
 * One spatial axis: a filter and a stride of at least 1, y * stride for every output row y and
 * in - (y * stride - pad) <= in + pad in int32. A window may lie wholly in the padding (a folded
 * PAD wider than the filter): the kernels then read none of its taps.
 */
static int axis_ok(int32_t in, int32_t out, int32_t filter, int32_t stride, int32_t pad)
{
    return filter >= 1 && stride >= 1 && vmcu_times(out, stride) != 0u && vmcu_in_range(pad, 0, INT32_MAX - in);
}

/*
 * Input [n][h][w][c] and output [n][out_h][out_w][c] to the byte; each window's taps read only
 * rows and columns inside the input; a channel segment (at most the channels) of results in the
 * scratch; a filter of at most VMCU_POOL_MAX_TAPS taps; the clamp and the folded PAD's value
 * within int8.
 */
vmcu_status vmcu_pool2d_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)step->params;
    const uint32_t taps = vmcu_times(p->filter_h, p->filter_w);
    if (!vmcu_nhwc_ok(model, step, &p->input, &p->output) || p->output.c != p->input.c || taps == 0u || taps > (uint32_t)VMCU_POOL_MAX_TAPS ||
        !axis_ok(p->input.h, p->output.h, p->filter_h, p->stride_h, p->pad_h) ||
        !axis_ok(p->input.w, p->output.w, p->filter_w, p->stride_w, p->pad_w) ||
        /* the kernels add the segment to a channel index in int32 */
        !vmcu_segments_fit(step, (uint32_t)p->output.c) || step->segment > (uint32_t)(INT32_MAX - p->output.c) ||
        !vmcu_clamp_ok(p->act_min, p->act_max) ||
        !vmcu_in_range(p->padded, 0, 1) || !vmcu_in_range(p->pad_value, -128, 127)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

uint32_t vmcu_pool2d_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)step->params;
    const int32_t fields[18] = {p->input.n,  p->input.h,  p->input.w,  p->input.c, p->output.n,  p->output.h,
                                p->output.w, p->output.c, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                                p->pad_h,    p->pad_w,    p->act_min,  p->act_max,  p->padded,   p->pad_value};
    return vmcu_crc32_i32s(crc, fields, 18u);
}
