/*
 * PAD, int8 (and int16 padded as bytes): the input surrounded by the pad value.
 *
 * The output is written row by row along its innermost dimension: a row outside the input is
 * all pad value, a row inside is pad, the input's row, pad. Where the innermost dimension is not
 * padded the planner may put the output over input rows already copied (pad.pad_access): each
 * row is copied forwards (vmcu_copy) to a place that does not start after its source.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_pad_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                        const vmcu_view *output)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)params;
    const int32_t rank = p->rank, last = p->rank - 1;
    const int8_t pad = (int8_t)p->pad_value;
    int32_t in_stride[VMCU_MAX_DIMS], idx[VMCU_MAX_DIMS];
    uint32_t rows = 1, row, out_offset = 0;
    int32_t d;
    (void)ctx;
    if (rank < 1 || rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    in_stride[last] = 1;
    for (d = last; d > 0; --d) {
        in_stride[d - 1] = in_stride[d] * p->input[d];
    }
    for (d = 0; d < last; ++d) {
        rows *= (uint32_t)p->output[d];
        idx[d] = 0;
    }
    for (row = 0; row < rows; ++row) {
        const uint32_t row_bytes = (uint32_t)p->output[last];
        uint32_t in_offset = 0;
        int inside = 1;
        for (d = 0; d < last; ++d) {
            const int32_t i = idx[d] - p->before[d];
            if (i < 0 || i >= p->input[d]) {
                inside = 0;
                break;
            }
            in_offset += (uint32_t)(i * in_stride[d]);
        }
        if (!inside) {
            vmcu_fill(output, out_offset, pad, row_bytes);
        } else {
            const uint32_t before = (uint32_t)p->before[last], len = (uint32_t)p->input[last];
            vmcu_fill(output, out_offset, pad, before);
            vmcu_copy(output, out_offset + before, &inputs[0], in_offset, len);
            vmcu_fill(output, out_offset + before + len, pad, row_bytes - before - len);
        }
        out_offset += row_bytes;
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
 * Input and output shapes to the byte; in every dimension the input, after `before` pad
 * positions, ends inside the output (so each row's pad after it is not negative); the pad value
 * within int8.
 */
static vmcu_status pad_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)step->params;
    int32_t d;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || vmcu_product(p->input, p->rank) == 0u ||
        vmcu_product(p->input, p->rank) != vmcu_input_bytes(model, step, 0) || vmcu_product(p->output, p->rank) == 0u ||
        vmcu_product(p->output, p->rank) != vmcu_output_bytes(model, step) || !vmcu_in_range(p->pad_value, -128, 127)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (!vmcu_in_range(p->before[d], 0, p->output[d] - p->input[d])) { /* both >= 1: no overflow */
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    return VMCU_OK;
}

static uint32_t pad_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_pad_params *p = (const vmcu_pad_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->input, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->output, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->before, VMCU_MAX_DIMS);
    return vmcu_crc32_u32(crc, (uint32_t)p->pad_value);
}

const vmcu_kernel vmcu_pad_s8_kernel = {.run = vmcu_pad_s8, .check = pad_check, .digest = pad_digest};
