/*
 * int16 SOFTMAX (16x8 models) over the last axis, whole tensor (the output apart from its input), as
 * TFLite Micro's reference_ops SoftmaxInt16:
 *
 * For each row: its maximum; each element's difference to it (-65535..0) times the input multiplier
 * (shift <= 14 keeps the left-shifted difference inside int32), recentred by 32767 and saturated to
 * int16, looked up in the exp table; the exps (each at most 32767, a row of at most 65536) summed in
 * int32 and kept in the output row. The sum, normalised to [2^30, 2^31) by its leading zeros and
 * rounded to 17 bits, recentred to int16 and looked up in the 1/(1+x) table, is the reciprocal; each
 * exp times it, rounded and shifted back by the sum's magnitude, clamped to 0..32767, is the output.
 *
 * A table lookup (TFLite's LUTLookup for int16): entry 256 + (v >> 7) plus the difference to the next
 * entry times the low 7 bits, rounded (arithmetic shifts of possibly negative values are done as
 * floor divisions), the sum wrapped to int16.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

static int32_t load_s16(const vmcu_view *view, uint32_t element)
{
    const uint32_t bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

static void store_s16(const vmcu_view *view, uint32_t element, int32_t value)
{
    vmcu_store_le(view, element, 2u, (uint64_t)(uint16_t)value);
}

/* x / 2^bits rounded toward minus infinity (an arithmetic shift right). */
static int32_t floor_shift(int32_t x, int32_t bits)
{
    return x >= 0 ? x >> bits : -(int32_t)((uint32_t)(-(x + 1)) >> bits) - 1;
}

static int32_t wrap16(int32_t x)
{
    const uint32_t bits = (uint32_t)x & 0xFFFFu;
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

static int32_t lookup(const int16_t *table, int32_t value)
{
    const int32_t index = 256 + floor_shift(value, 7); /* 0..511 for an int16 value */
    const int32_t offset = value & 0x7F;
    const int32_t base = table[index];
    const int32_t slope = table[index + 1] - base;
    return wrap16(base + floor_shift(slope * offset + 64, 7));
}

static int32_t saturate16(int32_t x)
{
    return x < -32768 ? -32768 : (x > 32767 ? 32767 : x);
}

vmcu_status vmcu_softmax_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_softmax_s16_params *p = (const vmcu_softmax_s16_params *)params;
    int32_t row, c;
    (void)ctx;
    /* checked before the run too; here it tells the compiler the ranges the comments rely on */
    if (p->input_shift < -31 || p->input_shift > 14 || p->depth < 1 || p->depth > 65536) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (row = 0; row < p->outer; ++row) {
        const uint32_t first = (uint32_t)row * (uint32_t)p->depth;
        int32_t max_in_row = -32768, sum = 0, headroom, shifted, reciprocal, right;
        int64_t rounding;
        for (c = 0; c < p->depth; ++c) {
            max_in_row = vmcu_max(max_in_row, load_s16(&inputs[0], first + (uint32_t)c));
        }
        for (c = 0; c < p->depth; ++c) {
            const int32_t diff = load_s16(&inputs[0], first + (uint32_t)c) - max_in_row;
            const int32_t scaled = vmcu_requantize(diff, p->input_multiplier, p->input_shift);
            const int32_t e = lookup(p->exp_table, saturate16(scaled > INT32_MAX - 32767 ? INT32_MAX : scaled + 32767));
            store_s16(output, first + (uint32_t)c, e);
            sum += e;
        }
        headroom = vmcu_clz32((uint32_t)sum);
        if (sum <= 0 || headroom > 30) { /* the maximum's own exp alone is near 32767: a corrupt table */
            return VMCU_ERROR_BAD_MODEL;
        }
        shifted = (int32_t)((((int64_t)sum << (headroom - 1)) + (1 << 13)) >> 14);
        reciprocal = lookup(p->reciprocal_table, saturate16(shifted - ((1 << 15) + (1 << 16))));
        right = 31 - headroom;
        rounding = (int64_t)1 << (right - 1);
        for (c = 0; c < p->depth; ++c) {
            const int64_t product = (int64_t)load_s16(output, first + (uint32_t)c) * reciprocal + rounding;
            const int64_t result = product >= 0 ? product >> right : -((-product - 1) >> right) - 1;
            store_s16(output, first + (uint32_t)c, result < 0 ? 0 : (result > 32767 ? 32767 : (int32_t)result));
        }
    }
    return VMCU_OK;
}

/* One input and the output of outer * depth int16 elements each, the scaling's bounds, both tables. */
static vmcu_status softmax_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_softmax_s16_params *p = (const vmcu_softmax_s16_params *)step->params;
    const uint32_t elements = vmcu_times(p->outer, p->depth);
    if (step->num_inputs != 1u || !vmcu_in_range(p->depth, 1, 65536) || elements == 0u ||
        elements > UINT32_C(0x3FFFFFFF) || !vmcu_in_range(p->input_shift, -31, 14) || p->input_multiplier < 0 ||
        p->exp_table == 0 || p->reciprocal_table == 0 || vmcu_output_bytes(model, step) != elements * 2u ||
        vmcu_input_bytes(model, step, 0u) != elements * 2u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order, each table's 513 entries where its pointer is. */
static uint32_t softmax_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_softmax_s16_params *p = (const vmcu_softmax_s16_params *)step->params;
    const int32_t head[4] = {p->outer, p->depth, p->input_multiplier, p->input_shift};
    crc = vmcu_crc32_i32s(crc, head, 4u);
    crc = vmcu_crc32(crc, p->exp_table, 513u * 2u);
    return vmcu_crc32(crc, p->reciprocal_table, 513u * 2u);
}

const vmcu_kernel vmcu_softmax_s16_kernel = {.run = vmcu_softmax_s16, .check = softmax_s16_check,
                                             .digest = softmax_s16_digest};
