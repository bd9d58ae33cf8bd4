/*
 * vmcu-tflite runtime: the check of the broadcasting walk (vmcu_broadcast.h) and the digest of its
 * params, shared by ADD, SUB, MUL, MAXIMUM, MINIMUM and PRELU.
 */
#include "vmcu/vmcu_check.h"

#include "vmcu_broadcast.h"

/*
 * Elements an operand walked with `strides` over `dims` spans: 1 + sum over d of (dims - 1) *
 * strides (its largest offset plus one), or 0 when a stride is negative, the innermost one is
 * neither 0 nor 1 (the walk's runs), a dims * strides passes int32 (the walk's carry subtracts
 * it in int32) or the span does.
 */
uint32_t vmcu_walk_span(const int32_t *dims, const int32_t *strides, int32_t rank, uint32_t limit)
{
    uint32_t last = 0u;
    int32_t d;
    for (d = 0; d < rank; ++d) {
        if (strides[d] != 0) {
            const uint32_t whole = vmcu_times(dims[d], strides[d]); /* 0 also for a negative stride */
            const uint32_t reach = whole - (uint32_t)strides[d];
            if (whole == 0u || reach > limit - last) {
                return 0u;
            }
            last += reach;
        }
    }
    return last + 1u;
}

/* The int8 walk's span: its innermost stride 0 or 1 (the kernels read runs of bytes). */
static uint32_t walk_span(const int32_t *dims, const int32_t *strides, int32_t rank)
{
    if (strides[rank - 1] != 0 && strides[rank - 1] != 1) {
        return 0u;
    }
    return vmcu_walk_span(dims, strides, rank, UINT32_C(0x7FFFFFFF));
}

/* Operand `k`'s elements: its constant's length, or the bytes of the input it reads. */
static uint32_t operand_size(const vmcu_model *model, const vmcu_step *step, const int8_t *constant,
                             int32_t constant_size, uint32_t input)
{
    if (constant != 0) {
        return constant_size > 0 ? (uint32_t)constant_size : 0u;
    }
    return vmcu_input_bytes(model, step, input);
}

int vmcu_broadcast_walk_ok(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)step->params;
    const uint32_t activations = (p->constant1 == 0 ? 1u : 0u) + (p->constant2 == 0 ? 1u : 0u);
    uint32_t total;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || step->num_inputs != activations) {
        return 0;
    }
    total = vmcu_product(p->dims, p->rank);
    /* the walk takes the segment as an int32; operand 2 reads input 1 after an activation operand 1, else input 0 */
    return total != 0u && total == vmcu_output_bytes(model, step) && vmcu_segments_fit(step, total) &&
           step->segment <= UINT32_C(0x7FFFFFFF) &&
           walk_span(p->dims, p->strides1, p->rank) ==
               operand_size(model, step, p->constant1, p->constant1_size, 0u) &&
           walk_span(p->dims, p->strides2, p->rank) ==
               operand_size(model, step, p->constant2, p->constant2_size, p->constant1 == 0 ? 1u : 0u);
}

vmcu_status vmcu_add_sub_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)step->params;
    return vmcu_broadcast_walk_ok(model, step) && vmcu_binary_arith_ok(&p->arith) ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

uint32_t vmcu_elementwise_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_elementwise_params *p = (const vmcu_elementwise_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides1, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides2, VMCU_MAX_DIMS);
    if (p->constant1 != 0) {
        crc = vmcu_crc32(crc, p->constant1, (uint32_t)p->constant1_size);
    }
    if (p->constant2 != 0) {
        crc = vmcu_crc32(crc, p->constant2, (uint32_t)p->constant2_size);
    }
    crc = vmcu_crc32_u32(crc, (uint32_t)p->constant1_size);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->constant2_size);
    return vmcu_binary_arith_digest(crc, &p->arith);
}
