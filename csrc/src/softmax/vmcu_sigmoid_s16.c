/*
 * int16 LOGISTIC and TANH (16x8 models), whole tensor (the output apart from its input), as TFLite
 * Micro's reference_integer_ops Logistic and Tanh for int16:
 *
 * v = (x * input_multiplier + rounding) >> input_left_shift brings the input to 1/(3 * 4096) per step
 * (|x * multiplier| <= 2^15 * 32767 and the rounding at most 2^30: no int32 overflow). The magnitude
 * |v| indexes the 256-entry sigmoid table in steps of 512 (LOGISTIC) or 256 (TANH: tanh(x) = 2 *
 * sigmoid(2x) - 1), the remainder interpolating linearly to the next entry (all in uint32, the table
 * rising); from index 255 on the curve saturates. LOGISTIC mirrors negative inputs as 1 - sigmoid
 * and returns Q0.15 in 0..32767, TANH returns 2 * sigmoid - 1 in -32767..32767; both round as TFLite
 * (adding half an output step, an arithmetic shift right).
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "../elementwise/vmcu_elementwise_s16.h"

enum { OP_LOGISTIC = 0, OP_TANH = 1 };

static int32_t load_s16(const vmcu_view *view, uint32_t element)
{
    const uint32_t bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

/* An arithmetic shift right of a possibly negative value (floor division by 2^bits). */
static int32_t floor_shift(int32_t x, int32_t bits)
{
    return x >= 0 ? x >> bits : -(int32_t)((uint32_t)(-(x + 1)) >> bits) - 1;
}

static int32_t logistic(const uint16_t *table, int32_t v)
{
    const uint32_t magnitude = v < 0 ? (uint32_t)(-v) : (uint32_t)v;
    const uint32_t index = magnitude >> 9;
    uint32_t curve;
    if (index >= 255u) {
        curve = UINT32_C(0x7FFF) << 10;
    } else {
        const uint32_t low = table[index], high = table[index + 1u];
        curve = (low << 9) + (magnitude & 0x1FFu) * (high - low);
    }
    curve = v >= 0 ? curve + (1u << 9) : (1u << 25) - curve + (1u << 9) - 1u;
    return (int32_t)(curve >> 10);
}

static int32_t tanh16(const uint16_t *table, int32_t v)
{
    const uint32_t magnitude = v < 0 ? (uint32_t)(-v) : (uint32_t)v;
    const uint32_t index = magnitude >> 8;
    int32_t curve;
    if (index >= 255u) {
        curve = (int32_t)(UINT32_C(0xFFFF) << 8);
    } else {
        const uint32_t low = table[index], high = table[index + 1u];
        curve = (int32_t)((low << 8) + (magnitude & 0xFFu) * (high - low));
    }
    curve = v >= 0 ? curve - (1 << 23) + (1 << 7) : -curve + (1 << 23) + (1 << 7) - 1;
    return floor_shift(curve, 8);
}

/* The pointer loops of the kernel below (one per operation), on a run of `n` elements. */
void vmcu_sigmoid_s16_block(const vmcu_sigmoid_s16_params *p, const int16_t *in, int16_t *out, int32_t n)
{
    const int32_t shift = p->input_left_shift, multiplier = p->input_multiplier;
    const int32_t rounding = shift > 0 ? (int32_t)(UINT32_C(1) << (shift - 1)) : 0;
    int32_t i;
    if (p->operation == OP_LOGISTIC) {
        for (i = 0; i < n; ++i) {
            out[i] = (int16_t)logistic(p->table, floor_shift(in[i] * multiplier + rounding, shift));
        }
    } else {
        for (i = 0; i < n; ++i) {
            out[i] = (int16_t)tanh16(p->table, floor_shift(in[i] * multiplier + rounding, shift));
        }
    }
}

vmcu_status vmcu_sigmoid_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                             const vmcu_view *output)
{
    const vmcu_sigmoid_s16_params *p = (const vmcu_sigmoid_s16_params *)params;
    const int32_t shift = p->input_left_shift, multiplier = p->input_multiplier;
    const uint32_t bytes = (uint32_t)p->size * 2u;
    const int16_t *in;
    int16_t *out;
    int32_t rounding, i;
    (void)ctx;
    /* checked before the run too; here it tells the compiler the shift's range */
    if (shift < 0 || shift > 31 || multiplier < 0 || multiplier > 32767) {
        return VMCU_ERROR_BAD_MODEL;
    }
    rounding = shift > 0 ? (int32_t)(UINT32_C(1) << (shift - 1)) : 0;
    in = vmcu_span16(&inputs[0], 0u, bytes);
    out = (int16_t *)(uintptr_t)vmcu_span16(output, 0u, bytes);
    if (in != 0 && out != 0) {
        /* neither crosses the end of the pool: the same reads and writes in the same order, through pointers,
         * one loop per operation */
        if (p->operation == OP_LOGISTIC) {
            for (i = 0; i < p->size; ++i) {
                out[i] = (int16_t)logistic(p->table, floor_shift(in[i] * multiplier + rounding, shift));
            }
        } else {
            for (i = 0; i < p->size; ++i) {
                out[i] = (int16_t)tanh16(p->table, floor_shift(in[i] * multiplier + rounding, shift));
            }
        }
        return VMCU_OK;
    }
    for (i = 0; i < p->size; ++i) {
        const int32_t v = floor_shift(load_s16(&inputs[0], (uint32_t)i) * multiplier + rounding, shift);
        const int32_t y = p->operation == OP_LOGISTIC ? logistic(p->table, v) : tanh16(p->table, v);
        vmcu_store_le(output, (uint32_t)i, 2u, (uint64_t)(uint16_t)y);
    }
    return VMCU_OK;
}

/* An operation, the scaling's bounds, a table. */
int vmcu_sigmoid_s16_params_ok(const vmcu_sigmoid_s16_params *p)
{
    return vmcu_in_range(p->operation, OP_LOGISTIC, OP_TANH) && vmcu_in_range(p->size, 1, 0x3FFFFFFF) &&
           vmcu_in_range(p->input_multiplier, 0, 32767) && vmcu_in_range(p->input_left_shift, 0, 31) && p->table != 0;
}

/* One input and the output of `size` int16 elements each, and params vmcu_sigmoid_s16_params_ok takes. */
static vmcu_status sigmoid_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_sigmoid_s16_params *p = (const vmcu_sigmoid_s16_params *)step->params;
    if (step->num_inputs != 1u || !vmcu_sigmoid_s16_params_ok(p) ||
        vmcu_output_bytes(model, step) != (uint32_t)p->size * 2u ||
        vmcu_input_bytes(model, step, 0u) != (uint32_t)p->size * 2u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    return VMCU_OK;
}

/* The fields in declaration order, the table's 256 entries where its pointer is. */
static uint32_t sigmoid_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_sigmoid_s16_params *p = (const vmcu_sigmoid_s16_params *)step->params;
    const int32_t head[4] = {p->operation, p->size, p->input_multiplier, p->input_left_shift};
    crc = vmcu_crc32_i32s(crc, head, 4u);
    return vmcu_crc32(crc, p->table, 512u);
}

const vmcu_kernel vmcu_sigmoid_s16_kernel = {.run = vmcu_sigmoid_s16, .check = sigmoid_s16_check,
                                             .digest = sigmoid_s16_digest};
