/*
 * vmcu-tflite runtime: the check and the digest of the int16 pools' vmcu_pool_params (vmcu_pool2d_s16.h).
 */
#include "vmcu/vmcu_check.h"

#include "vmcu_pool2d_s16.h"

/*
 * One spatial axis: a filter and a stride of at least 1, y * stride within int32 for every output row
 * y, and the padding such that in - (y * stride - pad) <= in + pad stays in int32.
 */
static int axis_ok(int32_t in, int32_t out, int32_t filter, int32_t stride, int32_t pad)
{
    return in >= 1 && filter >= 1 && stride >= 1 && vmcu_times(out, stride) != 0u &&
           vmcu_in_range(pad, 0, INT32_MAX - in);
}

/*
 * Input [n][h][w][c] and output [n][out_h][out_w][c] of int16 elements to the byte, one batch and
 * channel count, at most VMCU_POOL_S16_MAX_TAPS taps a window, the clamp and a folded PAD's value
 * within int16.
 */
vmcu_status vmcu_pool2d_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)step->params;
    const uint32_t taps = vmcu_times(p->filter_h, p->filter_w);
    const uint32_t in = vmcu_dims_product(&p->input), out = vmcu_dims_product(&p->output);
    if (step->num_inputs != 1u || in == 0u || in > UINT32_C(0x7FFFFFFF) / 2u || out == 0u ||
        out > UINT32_C(0x7FFFFFFF) / 2u || vmcu_input_bytes(model, step, 0u) != 2u * in ||
        vmcu_output_bytes(model, step) != 2u * out || p->output.n != p->input.n || p->output.c != p->input.c ||
        taps == 0u || taps > (uint32_t)VMCU_POOL_S16_MAX_TAPS ||
        !axis_ok(p->input.h, p->output.h, p->filter_h, p->stride_h, p->pad_h) ||
        !axis_ok(p->input.w, p->output.w, p->filter_w, p->stride_w, p->pad_w) ||
        !vmcu_in_range(p->act_min, -32768, 32767) || !vmcu_in_range(p->act_max, p->act_min, 32767) ||
        !vmcu_in_range(p->padded, 0, 1) || !vmcu_in_range(p->pad_value, -32768, 32767)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

uint32_t vmcu_pool2d_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_pool_params *p = (const vmcu_pool_params *)step->params;
    const int32_t fields[18] = {p->input.n,  p->input.h,  p->input.w,  p->input.c, p->output.n,  p->output.h,
                                p->output.w, p->output.c, p->filter_h, p->filter_w, p->stride_h, p->stride_w,
                                p->pad_h,    p->pad_w,    p->act_min,  p->act_max,  p->padded,   p->pad_value};
    return vmcu_crc32_i32s(crc, fields, 18u);
}
