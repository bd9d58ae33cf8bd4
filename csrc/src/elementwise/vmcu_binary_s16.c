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
#include "vmcu_elementwise_s16.h"

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

/*
 * vmcu_requantize where the check holds the multiplier >= 0 and the shift <= 0 and |x| < 2^31: neither
 * of its saturating corners (x and the multiplier both INT32_MIN) can occur, so the same bits come
 * without their tests: with shift 0 the rounding doubling high mul, else both roundings in one sum.
 */
static inline int32_t scale_down(int32_t x, int32_t multiplier, int32_t shift)
{
    int64_t a = (int64_t)x * (int64_t)multiplier + ((int64_t)1 << 30);
    if (shift == 0) {
        return (int32_t)(a >> 31);
    }
    a += (int64_t)((UINT32_C(1) << (-shift - 1)) - (a < 0 ? 1u : 0u)) << 31;
    return (int32_t)(a >> 32) >> (-shift - 1);
}

static inline int32_t clamp_out(const vmcu_binary_arith *q, int32_t scaled)
{
    const int64_t v = (int64_t)scaled + q->output_offset;
    return v < q->act_min ? q->act_min : (v > q->act_max ? q->act_max : (int32_t)v);
}

/* An ADD or SUB operand brought to twice the larger input scale. */
static inline int32_t operand1(const vmcu_binary_arith *q, int32_t a)
{
    return scale_down((a + q->input1_offset) * ((int32_t)1 << q->left_shift), q->input1_multiplier, q->input1_shift);
}

static inline int32_t operand2(const vmcu_binary_arith *q, int32_t b)
{
    return scale_down((b + q->input2_offset) * ((int32_t)1 << q->left_shift), q->input2_multiplier, q->input2_shift);
}

static int32_t combine(const vmcu_binary_arith *q, int32_t operation, int32_t a, int32_t b)
{
    if (operation == OP_MUL) {
        return clamp_out(q, scale_down((a + q->input1_offset) * (b + q->input2_offset), q->output_multiplier,
                                       q->output_shift));
    }
    return clamp_out(q, scale_down(operation == OP_ADD ? operand1(q, a) + operand2(q, b)
                                                       : operand1(q, a) - operand2(q, b),
                                   q->output_multiplier, q->output_shift));
}

/*
 * TFLite's own int16 case, which the unrolled recurrent models are made of: zero offsets, the clamp the
 * whole of int16, both operands and the output contiguous. Fewer values live in the loop than in run_s16
 * (no offsets, strides or clamp bounds), so none spills; the arithmetic is the same: with zero offsets the
 * scaled value is the output itself, and it fits int32 (a multiplier below one), so SSAT is the clamp.
 * `sign` is 1 for ADD, -1 for SUB (-s2 exists: |s2| < 2^31).
 */
static void plain_s16(const vmcu_binary_arith *q, int32_t operation, const int16_t *a, const int16_t *b, int16_t *out,
                      int32_t n)
{
    const int32_t om = q->output_multiplier, os = q->output_shift;
    const int32_t m1 = q->input1_multiplier, sh1 = q->input1_shift, m2 = q->input2_multiplier, sh2 = q->input2_shift;
    int32_t i;
    if (operation == OP_MUL) {
        for (i = 0; i < n; ++i) {
            out[i] = (int16_t)vmcu_sat16(scale_down(a[i] * b[i], om, os));
        }
    } else if (m1 == (INT32_C(1) << 30) && sh1 == 0) { /* operand 1 at one half: see run_s16 */
        const int32_t sign = operation == OP_ADD ? 1 : -1;
        for (i = 0; i < n; ++i) {
            const int32_t s1 = a[i] * (INT32_C(1) << 14);
            const int32_t s2 = scale_down(b[i] * (INT32_C(1) << 15), m2, sh2);
            out[i] = (int16_t)vmcu_sat16(scale_down(s1 + sign * s2, om, os));
        }
    } else {
        const int32_t sign = operation == OP_ADD ? 1 : -1;
        for (i = 0; i < n; ++i) {
            const int32_t s1 = scale_down(a[i] * (INT32_C(1) << 15), m1, sh1);
            const int32_t s2 = scale_down(b[i] * (INT32_C(1) << 15), m2, sh2);
            out[i] = (int16_t)vmcu_sat16(scale_down(s1 + sign * s2, om, os));
        }
    }
}

/*
 * One run of `n` output elements whose operands and output lie in the pool without its end between
 * them (or in a constant): the same reads and writes in the same order as the element walk (operand 1,
 * operand 2, then the output, element after element), through int16 pointers. An operand from a
 * constant with stride 0 (a scalar, as 1 - z) is scaled once.
 */
static void run_s16(const vmcu_binary_arith *q, int32_t operation, const int16_t *a, int32_t sa, int aconst,
                    const int16_t *b, int32_t sb, int bconst, int16_t *out, int32_t n)
{
    int32_t i;
    if (operation == OP_MUL) {
        for (i = 0; i < n; ++i) {
            const int32_t x = a[i * sa], y = b[i * sb];
            out[i] = (int16_t)clamp_out(q, scale_down(x * y, q->output_multiplier, q->output_shift));
        }
        return;
    }
    if (aconst && sa == 0) {
        const int32_t s1 = operand1(q, a[0]);
        for (i = 0; i < n; ++i) {
            const int32_t s2 = operand2(q, b[i * sb]);
            out[i] = (int16_t)clamp_out(q, scale_down(operation == OP_ADD ? s1 + s2 : s1 - s2, q->output_multiplier,
                                                      q->output_shift));
        }
        return;
    }
    if (bconst && sb == 0) {
        const int32_t s2 = operand2(q, b[0]);
        for (i = 0; i < n; ++i) {
            const int32_t s1 = operand1(q, a[i * sa]);
            out[i] = (int16_t)clamp_out(q, scale_down(operation == OP_ADD ? s1 + s2 : s1 - s2, q->output_multiplier,
                                                      q->output_shift));
        }
        return;
    }
    if (q->input1_multiplier == (INT32_C(1) << 30) && q->input1_shift == 0 && q->left_shift == 15) {
        /* operand 1 has the larger scale (its multiplier one half): the doubling high mul of k * 2^15 by 2^30
         * is exactly k * 2^14 (k * 2^45 + 2^30 is below (k * 2^14 + 1) * 2^31), a shift, not a 64-bit product */
        for (i = 0; i < n; ++i) {
            const int32_t s1 = (a[i * sa] + q->input1_offset) * (INT32_C(1) << 14);
            const int32_t s2 = operand2(q, b[i * sb]);
            out[i] = (int16_t)clamp_out(q, scale_down(operation == OP_ADD ? s1 + s2 : s1 - s2, q->output_multiplier,
                                                      q->output_shift));
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        const int32_t s1 = operand1(q, a[i * sa]);
        const int32_t s2 = operand2(q, b[i * sb]);
        out[i] = (int16_t)clamp_out(q, scale_down(operation == OP_ADD ? s1 + s2 : s1 - s2, q->output_multiplier,
                                                  q->output_shift));
    }
}

/* plain_s16 where TFLite's own case holds, else run_s16 with unit strides: the single kernel's choice. */
void vmcu_binary_s16_block(const vmcu_binary_s16_params *p, const int16_t *a, const int16_t *b, int16_t *out,
                           int32_t n)
{
    const vmcu_binary_arith *q = &p->arith;
    if (q->input1_offset == 0 && q->input2_offset == 0 && q->output_offset == 0 && q->act_min == -32768 &&
        q->act_max == 32767 && (p->operation == OP_MUL || q->left_shift == 15)) {
        plain_s16(q, p->operation, a, b, out, n);
    } else {
        run_s16(q, p->operation, a, 1, 0, b, 1, 0, out, n);
    }
}

/* The int16 elements [element, element + (n - 1) * stride] of an operand as a pointer, or NULL where they
 * cross the end of the pool or are not aligned (or under access tracing). */
static const int16_t *operand_run(const vmcu_view *view, const int16_t *constant, uint32_t element, int32_t stride,
                                  int32_t n)
{
    if (constant != 0) {
        return constant + element;
    }
    return vmcu_span16(view, element * 2u, ((uint32_t)(n - 1) * (uint32_t)stride + 1u) * 2u);
}

/* The run of `n` output elements from `element` on, one element at a time through the view. */
static void walk_s16(const vmcu_binary_s16_params *p, const vmcu_view *first, const vmcu_view *second,
                     const vmcu_view *output, uint32_t element, uint32_t offset1, uint32_t offset2, int32_t n)
{
    const int32_t last = p->rank - 1;
    int32_t i;
    for (i = 0; i < n; ++i) {
        const int32_t value = combine(&p->arith, p->operation, load(first, p->constant1, offset1),
                                      load(second, p->constant2, offset2));
        vmcu_store_le(output, element + (uint32_t)i, 2u, (uint64_t)(uint16_t)value);
        offset1 += (uint32_t)p->strides1[last];
        offset2 += (uint32_t)p->strides2[last];
    }
}

vmcu_status vmcu_binary_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                            const vmcu_view *output)
{
    const vmcu_binary_s16_params *p = (const vmcu_binary_s16_params *)params;
    const vmcu_view *second = p->constant1 == 0 ? &inputs[1] : &inputs[0];
    const int32_t last = p->rank - 1;
    int32_t index[VMCU_MAX_DIMS] = {0};
    uint32_t offset1 = 0u, offset2 = 0u, o, total;
    int32_t n, d;
    int plain;
    (void)ctx;
    /* checked before the run too; here it tells the compiler the shifts' ranges */
    if (p->arith.left_shift < 0 || p->arith.left_shift > 15 || p->arith.input1_shift > 0 || p->arith.input2_shift > 0 ||
        p->arith.output_shift > 0 || p->rank < 1 || p->rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    total = vmcu_product(p->dims, p->rank);
    n = p->dims[last];
    plain = p->arith.input1_offset == 0 && p->arith.input2_offset == 0 && p->arith.output_offset == 0 &&
            p->arith.act_min == -32768 && p->arith.act_max == 32767 &&
            (p->operation == OP_MUL || p->arith.left_shift == 15);
    /* the innermost dimension's runs, the outer ones walked by an odometer (the innermost moves first) */
    for (o = 0u; o < total; o += (uint32_t)n) {
        const int16_t *a = operand_run(&inputs[0], p->constant1, offset1, p->strides1[last], n);
        const int16_t *b = operand_run(second, p->constant2, offset2, p->strides2[last], n);
        int16_t *out = (int16_t *)(uintptr_t)vmcu_span16(output, o * 2u, (uint32_t)n * 2u);
        if (a != 0 && b != 0 && out != 0 && plain && p->strides1[last] == 1 && p->strides2[last] == 1) {
            plain_s16(&p->arith, p->operation, a, b, out, n);
        } else if (a != 0 && b != 0 && out != 0) {
            run_s16(&p->arith, p->operation, a, p->strides1[last], p->constant1 != 0, b, p->strides2[last],
                    p->constant2 != 0, out, n);
        } else {
            walk_s16(p, &inputs[0], second, output, o, offset1, offset2, n);
        }
        for (d = last - 1; d >= 0; --d) {
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

int vmcu_binary_s16_arith_ok(const vmcu_binary_s16_params *p)
{
    return vmcu_in_range(p->operation, OP_ADD, OP_MUL) && arith_ok(p->operation, &p->arith);
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
