/*
 * int32 ADD, MUL, DIV, MAXIMUM and MINIMUM, whole tensor (the output apart from its inputs), with
 * numpy broadcasting. As TFLite Micro's int32 reference ops: ADD and MUL wrap modulo 2^32 (done in
 * uint32: no signed overflow), DIV truncates toward zero; the result is clamped to the params'
 * activation range. A zero divisor (TFLite Micro stops its run) or INT32_MIN / -1 (undefined in C)
 * stops the run with VMCU_ERROR_ARITHMETIC.
 *
 * Elements are 4 bytes of the pool, read and written little-endian through the view.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_broadcast.h"

enum { OP_ADD = 0, OP_MUL = 1, OP_DIV = 2, OP_MAXIMUM = 3, OP_MINIMUM = 4 };

static int32_t load(const vmcu_view *view, const int32_t *constant, uint32_t element)
{
    uint32_t bits;
    if (constant != 0) {
        return constant[element];
    }
    bits = (uint32_t)vmcu_load_le(view, element, 4u);
    return bits >= UINT32_C(0x80000000) ? -(int32_t)(UINT32_C(0xFFFFFFFF) - bits) - 1 : (int32_t)bits;
}

static vmcu_status combine(int32_t operation, int32_t a, int32_t b, int32_t *out)
{
    switch (operation) {
    case OP_ADD:
        *out = vmcu_add_wrap(a, b);
        return VMCU_OK;
    case OP_MUL:
        *out = (int32_t)((uint32_t)a * (uint32_t)b);
        return VMCU_OK;
    case OP_DIV:
        if (b == 0 || (a == INT32_MIN && b == -1)) {
            return VMCU_ERROR_ARITHMETIC;
        }
        *out = a / b;
        return VMCU_OK;
    case OP_MAXIMUM:
        *out = a > b ? a : b;
        return VMCU_OK;
    default:
        *out = a < b ? a : b;
        return VMCU_OK;
    }
}

vmcu_status vmcu_binary_s32(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    const vmcu_binary_s32_params *p = (const vmcu_binary_s32_params *)params;
    const vmcu_view *second = p->constant1 == 0 ? &inputs[1] : &inputs[0];
    int32_t index[VMCU_MAX_DIMS] = {0};
    uint32_t offset1 = 0u, offset2 = 0u, i, total = vmcu_product(p->dims, p->rank);
    (void)ctx;
    for (i = 0u; i < total; ++i) {
        int32_t value, d;
        const vmcu_status status =
            combine(p->operation, load(&inputs[0], p->constant1, offset1), load(second, p->constant2, offset2), &value);
        if (status != VMCU_OK) {
            return status;
        }
        value = vmcu_clamp(value, p->act_min, p->act_max);
        vmcu_store_le(output, i, 4u, (uint64_t)(uint32_t)value);
        for (d = p->rank - 1; d >= 0; --d) { /* the odometer: the innermost dimension moves first */
            offset1 += (uint32_t)p->strides1[d];
            offset2 += (uint32_t)p->strides2[d];
            if (++index[d] < p->dims[d]) {
                break;
            }
            index[d] = 0;
            offset1 -= (uint32_t)p->strides1[d] * (uint32_t)p->dims[d];
            offset2 -= (uint32_t)p->strides2[d] * (uint32_t)p->dims[d];
        }
    }
    return VMCU_OK;
}

/* Elements an operand spans over the walk, 0 for a negative stride or past what 4-byte elements
 * can address. */
static uint32_t span(const int32_t *dims, const int32_t *strides, int32_t rank)
{
    return vmcu_walk_span(dims, strides, rank, UINT32_C(0x3FFFFFFF));
}

static uint32_t operand_elements(const vmcu_model *model, const vmcu_step *step, const int32_t *constant,
                                 int32_t constant_size, uint32_t input)
{
    if (constant != 0) {
        return constant_size > 0 ? (uint32_t)constant_size : 0u;
    }
    return vmcu_input_bytes(model, step, input) % 4u == 0u ? vmcu_input_bytes(model, step, input) / 4u : 0u;
}

/* The walk inside the output and each operand (exactly their elements), an operation and a clamp. */
static vmcu_status binary_s32_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_binary_s32_params *p = (const vmcu_binary_s32_params *)step->params;
    const uint32_t activations = (p->constant1 == 0 ? 1u : 0u) + (p->constant2 == 0 ? 1u : 0u);
    uint32_t total;
    int32_t d;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || step->num_inputs != activations ||
        !vmcu_in_range(p->operation, OP_ADD, OP_MINIMUM) || p->act_min > p->act_max) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->strides1[d] < 0 || p->strides2[d] < 0) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    total = vmcu_product(p->dims, p->rank);
    if (total == 0u || total > UINT32_C(0x3FFFFFFF) || total * 4u != vmcu_output_bytes(model, step) ||
        span(p->dims, p->strides1, p->rank) != operand_elements(model, step, p->constant1, p->constant1_size, 0u) ||
        span(p->dims, p->strides2, p->rank) !=
            operand_elements(model, step, p->constant2, p->constant2_size, p->constant1 == 0 ? 1u : 0u)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order, each constant's elements where its pointer is. */
static uint32_t binary_s32_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_binary_s32_params *p = (const vmcu_binary_s32_params *)step->params;
    const int32_t head[4] = {p->operation, p->act_min, p->act_max, p->rank};
    crc = vmcu_crc32_i32s(crc, head, 4u);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides1, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides2, VMCU_MAX_DIMS);
    if (p->constant1 != 0) {
        crc = vmcu_crc32_i32s(crc, p->constant1, (uint32_t)p->constant1_size);
    }
    if (p->constant2 != 0) {
        crc = vmcu_crc32_i32s(crc, p->constant2, (uint32_t)p->constant2_size);
    }
    crc = vmcu_crc32_u32(crc, (uint32_t)p->constant1_size);
    return vmcu_crc32_u32(crc, (uint32_t)p->constant2_size);
}

const vmcu_kernel vmcu_binary_s32_kernel = {.run = vmcu_binary_s32, .check = binary_s32_check,
                                            .digest = binary_s32_digest};
