/*
 * PAD, int16 (a 16x8 model's PAD or PADV2 whose pad value is not two equal bytes): the input's
 * elements surrounded by the pad value. Rows along the innermost dimension: a row outside the input is
 * all pad value; a row inside is pad, the input's row (its bytes copied), pad. The output may lie over
 * input rows already copied, as PAD's byte kernel's (pad.pad_access).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_s16.h"

/* `count` elements of the pad value from element `first` on */
static void fill_s16(const vmcu_view *output, uint32_t first, int32_t value, uint32_t count)
{
    uint32_t i;
    for (i = 0; i < count; ++i) {
        vmcu_store_signed(output, first + i, 2u, value);
    }
}

vmcu_status vmcu_pad_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                         const vmcu_view *output)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)params;
    const int32_t last = p->rank - 1;
    int32_t in_stride[VMCU_MAX_DIMS], idx[VMCU_MAX_DIMS];
    uint32_t rows = 1, row, out_at = 0;
    int32_t d;
    (void)ctx;
    in_stride[last] = 1;
    for (d = last; d > 0; --d) {
        in_stride[d - 1] = in_stride[d] * p->input[d];
    }
    for (d = 0; d < last; ++d) {
        rows *= (uint32_t)p->output[d];
        idx[d] = 0;
    }
    for (row = 0; row < rows; ++row) {
        const uint32_t row_len = (uint32_t)p->output[last];
        uint32_t in_at = 0;
        int inside = 1;
        for (d = 0; d < last; ++d) {
            const int32_t i = idx[d] - p->before[d];
            if (i < 0 || i >= p->input[d]) {
                inside = 0;
                break;
            }
            in_at += (uint32_t)(i * in_stride[d]);
        }
        if (!inside) {
            fill_s16(output, out_at, p->pad_value, row_len);
        } else {
            const uint32_t before = (uint32_t)p->before[last], len = (uint32_t)p->input[last];
            fill_s16(output, out_at, p->pad_value, before);
            vmcu_copy(output, 2u * (out_at + before), &inputs[0], 2u * in_at, 2u * len);
            fill_s16(output, out_at + before + len, p->pad_value, row_len - before - len);
        }
        out_at += row_len;
        for (d = last - 1; d >= 0; --d) { /* next row */
            if (++idx[d] < p->output[d]) {
                break;
            }
            idx[d] = 0;
        }
    }
    return VMCU_OK;
}

/*
 * Input and output shapes to the byte of int16 elements; in every dimension the input, after
 * `before` pad positions, ends inside the output; the pad value within int16.
 */
static vmcu_status pad_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)step->params;
    uint32_t in, out;
    int32_t d;
    if (step->num_inputs != 1u || !vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    in = vmcu_product(p->input, p->rank);
    out = vmcu_product(p->output, p->rank);
    if (in == 0u || out == 0u || out > UINT32_C(0x3FFFFFFF) || vmcu_input_bytes(model, step, 0u) != 2u * in ||
        vmcu_output_bytes(model, step) != 2u * out || !vmcu_in_range(p->pad_value, -32768, 32767)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (!vmcu_in_range(p->before[d], 0, p->output[d] - p->input[d])) { /* both >= 1: no overflow */
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    return VMCU_OK;
}

static uint32_t pad_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->input, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->output, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->before, VMCU_MAX_DIMS);
    return vmcu_crc32_u32(crc, (uint32_t)p->pad_value);
}

const vmcu_kernel vmcu_pad_s16_kernel = {.run = vmcu_pad_s16, .check = pad_s16_check, .digest = pad_s16_digest};
