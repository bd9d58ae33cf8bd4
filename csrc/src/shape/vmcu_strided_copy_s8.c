/*
 * TRANSPOSE, STRIDED_SLICE, SPLIT, SPLIT_V, UNPACK and TILE, int8, up to 5-D (whole tensor: the output is apart).
 *
 * The output is written in order; a multi-index over the output's dimensions carries the
 * matching input offset along, from the first element's offset and the input stride of each
 * output dimension (negative for a reversed slice). The converter describes each op this way.
 * Where the innermost dimension is contiguous in the input, it is copied as one run. The two
 * loops repeat the index walk on purpose: a shared helper cost MCUNet-VWW's TRANSPOSE 5,280
 * instructions on Cortex-M4. Element by element, where neither the elements read nor the output
 * cross the end of the pool, each innermost run is read and written through plain pointers (the
 * wrap-checked accessors took twice the instructions on that TRANSPOSE).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

vmcu_status vmcu_strided_copy_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                 const vmcu_view *output)
{
    const vmcu_strided_copy_params *p = (const vmcu_strided_copy_params *)params;
    const int32_t rank = p->rank, last = p->rank - 1;
    int32_t idx[VMCU_MAX_COPY_DIMS];
    uint32_t total = 1, o, in_offset = p->input_start;
    int32_t d;
    (void)ctx;
    if (rank < 1 || rank > VMCU_MAX_COPY_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < rank; ++d) {
        total *= (uint32_t)p->output_dims[d];
        idx[d] = 0;
    }
    if (p->input_strides[last] == 1 && p->output_dims[last] > 1) {
        /* the innermost dimension is contiguous in the input: one copy per run */
        const uint32_t run = (uint32_t)p->output_dims[last];
        for (o = 0; o < total; o += run) {
            vmcu_copy(output, o, &inputs[0], in_offset, run);
            for (d = last - 1; d >= 0; --d) {
                in_offset += (uint32_t)p->input_strides[d];
                if (++idx[d] < p->output_dims[d]) {
                    break;
                }
                in_offset -= (uint32_t)(p->output_dims[d] * p->input_strides[d]);
                idx[d] = 0;
            }
        }
        return VMCU_OK;
    }
    {
        int64_t lowest = p->input_start, highest = p->input_start; /* the walk's reach: strided_copy_check */
        const int8_t *src;
        int8_t *dst = vmcu_span_out(output, 0u, total);
        for (d = 0; d < rank; ++d) {
            const int64_t reach = (int64_t)(p->output_dims[d] - 1) * p->input_strides[d];
            lowest += reach < 0 ? reach : 0;
            highest += reach < 0 ? 0 : reach;
        }
        src = vmcu_span(&inputs[0], (uint32_t)lowest, (uint32_t)(highest - lowest + 1));
        if (src != 0 && dst != 0) {
            const int32_t run = p->output_dims[last], step = p->input_strides[last];
            for (o = 0; o < total; o += (uint32_t)run) { /* a run of the innermost dimension, then the carry */
                const int8_t *from = src + (in_offset - (uint32_t)lowest);
                int32_t i;
                for (i = 0; i < run; ++i) {
                    dst[o + (uint32_t)i] = from[i * step];
                }
                for (d = last - 1; d >= 0; --d) {
                    in_offset += (uint32_t)p->input_strides[d];
                    if (++idx[d] < p->output_dims[d]) {
                        break;
                    }
                    in_offset -= (uint32_t)(p->output_dims[d] * p->input_strides[d]);
                    idx[d] = 0;
                }
            }
            return VMCU_OK;
        }
    }
    for (o = 0; o < total; ++o) {
        vmcu_put(output, o, vmcu_get(&inputs[0], in_offset));
        for (d = last; d >= 0; --d) {
            in_offset += (uint32_t)p->input_strides[d];
            if (++idx[d] < p->output_dims[d]) {
                break;
            }
            in_offset -= (uint32_t)(p->output_dims[d] * p->input_strides[d]);
            idx[d] = 0;
        }
    }
    return VMCU_OK;
}

/*
 * The output's dimensions to the byte; every input element the walk reads (from input_start, a
 * stride per output dimension, negative ones included) inside the input: the lowest and highest
 * reached are input_start plus the negative and the positive (dims - 1) x strides. Each dims x
 * strides fits int32 (the walk's carry subtracts it in int32), so the sums fit int64.
 */
static vmcu_status strided_copy_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_strided_copy_params *p = (const vmcu_strided_copy_params *)step->params;
    int64_t lowest = p->input_start, highest = p->input_start;
    int32_t d;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_COPY_DIMS) || vmcu_product(p->output_dims, p->rank) == 0u ||
        vmcu_product(p->output_dims, p->rank) != vmcu_output_bytes(model, step) || step->num_inputs < 1u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        const int64_t whole = (int64_t)p->output_dims[d] * p->input_strides[d];
        const int64_t reach = whole - p->input_strides[d];
        if (whole > INT32_MAX || whole < INT32_MIN) {
            return VMCU_ERROR_BAD_MODEL;
        }
        if (reach < 0) {
            lowest += reach;
        } else {
            highest += reach;
        }
    }
    return lowest >= 0 && highest < (int64_t)vmcu_input_bytes(model, step, 0) ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static uint32_t strided_copy_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_strided_copy_params *p = (const vmcu_strided_copy_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->output_dims, VMCU_MAX_COPY_DIMS);
    crc = vmcu_crc32_i32s(crc, p->input_strides, VMCU_MAX_COPY_DIMS);
    return vmcu_crc32_u32(crc, (uint32_t)p->input_start);
}

const vmcu_kernel vmcu_strided_copy_s8_kernel = {
    .run = vmcu_strided_copy_s8, .check = strided_copy_check, .digest = strided_copy_digest};
