/*
 * int16 ADD, SUB and MUL (16x8 models), whole tensor (the output apart from its inputs), with numpy
 * broadcasting walked as vmcu_binary_s32 walks it. As TFLite Micro's int16 kernels:
 *
 * ADD, SUB: each operand (x + offset) << left_shift (15) brought to twice the larger input scale by
 * a multiplier below one, summed (or subtracted) in int32, scaled to the output, plus its zero point.
 * The check holds the offsets inside (-32767, 32767) (TFLite's own bounds), so every shifted operand
 * is below 65534 * 2^15 < 2^31 and, halved at least, the sum below 2^31.
 * MUL: x1 * x2 (zero points 0, |product| <= 2^30) times one multiplier with a right shift.
 *
 * Elements are 2 bytes of the pool, read and written little-endian through the view.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_broadcast.h"

enum { OP_ADD = 0, OP_SUB = 1, OP_MUL = 2 };

static int32_t load(const vmcu_view *view, const int16_t *constant, uint32_t element)
{
    uint32_t bits;
    if (constant != 0) {
        return constant[element];
    }
    bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

static int32_t combine(const vmcu_binary_arith *q, int32_t operation, int32_t a, int32_t b)
{
    int64_t v;
    if (operation == OP_MUL) {
        v = (int64_t)vmcu_requantize((a + q->input1_offset) * (b + q->input2_offset), q->output_multiplier,
                                     q->output_shift);
    } else {
        const int32_t scale = (int32_t)1 << q->left_shift;
        const int32_t s1 = vmcu_requantize((a + q->input1_offset) * scale, q->input1_multiplier, q->input1_shift);
        const int32_t s2 = vmcu_requantize((b + q->input2_offset) * scale, q->input2_multiplier, q->input2_shift);
        v = (int64_t)vmcu_requantize(operation == OP_ADD ? s1 + s2 : s1 - s2, q->output_multiplier, q->output_shift);
    }
    v += q->output_offset;
    return v < q->act_min ? q->act_min : (v > q->act_max ? q->act_max : (int32_t)v);
}

vmcu_status vmcu_binary_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    const vmcu_binary_s16_params *p = (const vmcu_binary_s16_params *)params;
    const vmcu_view *second = p->constant1 == 0 ? &inputs[1] : &inputs[0];
    int32_t index[VMCU_MAX_DIMS] = {0};
    uint32_t offset1 = 0u, offset2 = 0u, i, total = vmcu_product(p->dims, p->rank);
    (void)ctx;
    /* checked before the run too; here it tells the compiler the shifts' ranges */
    if (p->arith.left_shift < 0 || p->arith.left_shift > 15 || p->arith.input1_shift > 0 || p->arith.input2_shift > 0 ||
        p->arith.output_shift > 0) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (i = 0u; i < total; ++i) {
        int32_t d;
        const int32_t value = combine(&p->arith, p->operation, load(&inputs[0], p->constant1, offset1),
                                      load(second, p->constant2, offset2));
        vmcu_store_le(output, i, 2u, (uint64_t)(uint16_t)value);
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

static uint32_t operand_elements(const vmcu_model *model, const vmcu_step *step, const int16_t *constant,
                                 int32_t constant_size, uint32_t input)
{
    if (constant != 0) {
        return constant_size > 0 ? (uint32_t)constant_size : 0u;
    }
    return vmcu_input_bytes(model, step, input) % 2u == 0u ? vmcu_input_bytes(model, step, input) / 2u : 0u;
}

/* The arithmetic each operation's comment above relies on. */
static int arith_ok(int32_t operation, const vmcu_binary_arith *q)
{
    if (!vmcu_in_range(q->act_min, -32768, 32767) || !vmcu_in_range(q->act_max, q->act_min, 32767) ||
        !vmcu_in_range(q->output_shift, -31, 0)) {
        return 0;
    }
    if (operation == OP_MUL) {
        return q->input1_offset == 0 && q->input2_offset == 0 && q->output_offset == 0 && q->left_shift == 0;
    }
    return vmcu_in_range(q->input1_offset, -32766, 32766) && vmcu_in_range(q->input2_offset, -32766, 32766) &&
           vmcu_in_range(q->output_offset, -32768, 32767) && q->left_shift == 15 &&
           vmcu_in_range(q->input1_shift, -31, 0) && vmcu_in_range(q->input2_shift, -31, 0) &&
           q->input1_multiplier >= 0 && q->input2_multiplier >= 0 && q->output_multiplier >= 0;
}

/* The walk inside the output and each operand (exactly their elements), an operation and its arithmetic. */
static vmcu_status binary_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_binary_s16_params *p = (const vmcu_binary_s16_params *)step->params;
    const uint32_t activations = (p->constant1 == 0 ? 1u : 0u) + (p->constant2 == 0 ? 1u : 0u);
    uint32_t total;
    int32_t d;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || step->num_inputs != activations ||
        !vmcu_in_range(p->operation, OP_ADD, OP_MUL) || !arith_ok(p->operation, &p->arith)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (p->strides1[d] < 0 || p->strides2[d] < 0) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    total = vmcu_product(p->dims, p->rank);
    if (total == 0u || total > UINT32_C(0x7FFFFFFF) || total * 2u != vmcu_output_bytes(model, step) ||
        vmcu_walk_span(p->dims, p->strides1, p->rank, UINT32_C(0x7FFFFFFF)) !=
            operand_elements(model, step, p->constant1, p->constant1_size, 0u) ||
        vmcu_walk_span(p->dims, p->strides2, p->rank, UINT32_C(0x7FFFFFFF)) !=
            operand_elements(model, step, p->constant2, p->constant2_size, p->constant1 == 0 ? 1u : 0u)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order, each constant's elements where its pointer is. */
static uint32_t binary_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_binary_s16_params *p = (const vmcu_binary_s16_params *)step->params;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->operation);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides1, VMCU_MAX_DIMS);
    crc = vmcu_crc32_i32s(crc, p->strides2, VMCU_MAX_DIMS);
    if (p->constant1 != 0) {
        crc = vmcu_crc32(crc, p->constant1, (uint32_t)p->constant1_size * 2u);
    }
    if (p->constant2 != 0) {
        crc = vmcu_crc32(crc, p->constant2, (uint32_t)p->constant2_size * 2u);
    }
    crc = vmcu_crc32_u32(crc, (uint32_t)p->constant1_size);
    crc = vmcu_crc32_u32(crc, (uint32_t)p->constant2_size);
    return vmcu_binary_arith_digest(crc, &p->arith);
}

const vmcu_kernel vmcu_binary_s16_kernel = {.run = vmcu_binary_s16, .check = binary_s16_check,
                                            .digest = binary_s16_digest};
