/*
 * int16 element-wise steps run as one (16x8 models): LOGISTIC, TANH, RELU, RELU6, LEAKY_RELU, ADD, SUB and
 * MUL over tensors of one shape, each member with the params its single step would have.
 *
 * The elements are walked in blocks of `block`. For each block the members run in order, each one call
 * of its kind's routine on the block (vmcu_elementwise_s16.h): an operand is either an external input's
 * run of the block, read in place in the pool, or a block buffer an earlier member wrote; a member writes
 * a block buffer, and the last one the output's run. The block buffers are the step's workspace (int16
 * arrays in the pool, never across its end). Every routine reads element i before it writes element i,
 * and every member before the last has read the whole block before the last writes anything, so input
 * element i is read for the last time before output element i is written: the output may land on the
 * consumed elements of an input, as a single element-wise step's may.
 *
 * Where a run crosses the end of the pool or lies unaligned (or under access tracing) the block is done
 * element by element through the views, the members on one element at a time.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"
#include "vmcu_elementwise_s16.h"

static int32_t load_s16(const vmcu_view *view, uint32_t element)
{
    const uint32_t bits = (uint32_t)vmcu_load_le(view, element, 2u);
    return bits >= 0x8000u ? (int32_t)bits - 0x10000 : (int32_t)bits;
}

static const int16_t *operand(int32_t source, const int16_t *const *external, const int16_t *buffers,
                              int32_t stride)
{
    return source < 0 ? external[-1 - source] : buffers + source * stride;
}

/* The members in order on `n` elements: external runs `external`, block buffers `stride` elements apart. */
static void run_block(const vmcu_group_s16_params *p, const int16_t *const *external, int16_t *buffers,
                      int32_t stride, int16_t *out, int32_t n)
{
    int32_t j;
    for (j = 0; j < p->num_members; ++j) {
        const vmcu_group_member *m = p->members[j];
        const int16_t *a = operand(m->sources[0], external, buffers, stride);
        int16_t *to = m->result < 0 ? out : buffers + m->result * stride;
        if (m->sigmoid != 0) {
            vmcu_sigmoid_s16_block(m->sigmoid, a, to, n);
        } else if (m->unary != 0) {
            vmcu_unary_s16_block(m->unary, a, to, n);
        } else {
            vmcu_binary_s16_block(m->binary, a, operand(m->sources[1], external, buffers, stride), to, n);
        }
    }
}

vmcu_status vmcu_group_s16(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                           const vmcu_view *output)
{
    const vmcu_group_s16_params *p = (const vmcu_group_s16_params *)params;
    const uint32_t count = ctx->step->num_inputs;
    int16_t *workspace = (int16_t *)(void *)(ctx->pool + ctx->step->workspace);
    const int16_t *external[VMCU_MAX_STEP_INPUTS];
    int16_t one[VMCU_MAX_STEP_INPUTS], values[VMCU_GROUP_MAX_MEMBERS], result;
    uint32_t start, k;
    int32_t n, i;
    if (count > VMCU_MAX_STEP_INPUTS || p->block < 1 || p->num_buffers > VMCU_GROUP_MAX_MEMBERS) {
        return VMCU_ERROR_BAD_MODEL; /* checked before the run too */
    }
    for (start = 0u; start < (uint32_t)p->size; start += (uint32_t)n) {
        int16_t *out = 0;
        int plain = ((uintptr_t)(void *)workspace & 1u) == 0u;
        n = (uint32_t)p->size - start < (uint32_t)p->block ? (int32_t)((uint32_t)p->size - start) : p->block;
        for (k = 0u; k < count; ++k) {
            external[k] = vmcu_span16(&inputs[k], start * 2u, (uint32_t)n * 2u);
            plain = plain && external[k] != 0;
        }
        out = (int16_t *)(uintptr_t)vmcu_span16(output, start * 2u, (uint32_t)n * 2u);
        if (plain && out != 0) {
            run_block(p, external, workspace, p->block, out, n);
            continue;
        }
        for (i = 0; i < n; ++i) { /* one element at a time through the views, its values on the stack */
            for (k = 0u; k < count; ++k) {
                one[k] = (int16_t)load_s16(&inputs[k], start + (uint32_t)i);
                external[k] = &one[k];
            }
            run_block(p, external, values, 1, &result, 1);
            vmcu_store_le(output, start + (uint32_t)i, 2u, (uint64_t)(uint16_t)result);
        }
    }
    return VMCU_OK;
}

/* The member's params: one kind's, its own checks, every tensor of `size` elements, no constant operand. */
static int member_params_ok(const vmcu_group_member *m, int32_t size)
{
    if ((m->sigmoid != 0) + (m->unary != 0) + (m->binary != 0) != 1) {
        return 0;
    }
    if (m->sigmoid != 0) {
        return vmcu_sigmoid_s16_params_ok(m->sigmoid) && m->sigmoid->size == size;
    }
    if (m->unary != 0) {
        return vmcu_unary_s16_params_ok(m->unary) && m->unary->size == size;
    }
    return vmcu_binary_s16_arith_ok(m->binary) && m->binary->constant1 == 0 && m->binary->constant2 == 0 &&
           vmcu_in_range(m->binary->rank, 1, VMCU_MAX_DIMS) && vmcu_product(m->binary->dims, m->binary->rank) ==
           (uint32_t)size;
}

/*
 * Every tensor `size` int16 elements; the block buffers inside the workspace, whole and at an even offset;
 * each member's params, each operand an external input or a buffer an earlier member of the block wrote,
 * each result a buffer, the last member's the output.
 */
static vmcu_status group_s16_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_group_s16_params *p = (const vmcu_group_s16_params *)step->params;
    uint32_t written = 0u, k;
    int32_t j, o;
    if (step->num_inputs < 1u || step->num_inputs > VMCU_MAX_STEP_INPUTS || p->members == 0 ||
        !vmcu_in_range(p->num_members, 1, VMCU_GROUP_MAX_MEMBERS) || !vmcu_in_range(p->size, 1, 0x3FFFFFFF) ||
        !vmcu_in_range(p->block, 1, p->size) || !vmcu_in_range(p->num_buffers, 0, VMCU_GROUP_MAX_MEMBERS - 1) ||
        p->block > 0x3FFFFFFF / VMCU_GROUP_MAX_MEMBERS || step->workspace % 2u != 0u ||
        !vmcu_workspace_holds(model, step, 0u, (uint32_t)p->num_buffers * (uint32_t)p->block * 2u, 1) ||
        vmcu_output_bytes(model, step) != (uint32_t)p->size * 2u) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (k = 0u; k < step->num_inputs; ++k) {
        if (vmcu_input_bytes(model, step, k) != (uint32_t)p->size * 2u) {
            return VMCU_ERROR_BAD_MODEL;
        }
    }
    for (j = 0; j < p->num_members; ++j) {
        const vmcu_group_member *m = p->members[j];
        const int last = j == p->num_members - 1;
        if (m == 0 || !member_params_ok(m, p->size) ||
            (last ? m->result != -1 : !vmcu_in_range(m->result, 0, p->num_buffers - 1))) {
            return VMCU_ERROR_BAD_MODEL;
        }
        for (o = 0; o < (m->binary != 0 ? 2 : 1); ++o) {
            const int32_t s = m->sources[o];
            if (s < 0 ? s < -(int32_t)step->num_inputs : (s >= p->num_buffers || (written & (1u << s)) == 0u)) {
                return VMCU_ERROR_BAD_MODEL;
            }
        }
        written |= last ? 0u : 1u << m->result;
    }
    return VMCU_OK;
}

/* The fields in declaration order, each member's own params by its kind's digest. */
static uint32_t group_s16_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_group_s16_params *p = (const vmcu_group_s16_params *)step->params;
    const int32_t head[4] = {p->size, p->block, p->num_members, p->num_buffers};
    int32_t j;
    crc = vmcu_crc32_i32s(crc, head, 4u);
    for (j = 0; p->members != 0 && j < p->num_members && j < VMCU_GROUP_MAX_MEMBERS; ++j) {
        const vmcu_group_member *m = p->members[j];
        const void *own[3];
        const vmcu_kernel *kinds[3];
        vmcu_step alone = *step;
        int32_t i;
        if (m == 0) {
            continue;
        }
        own[0] = m->sigmoid;
        own[1] = m->unary;
        own[2] = m->binary;
        kinds[0] = &vmcu_sigmoid_s16_kernel;
        kinds[1] = &vmcu_unary_s16_kernel;
        kinds[2] = &vmcu_binary_s16_kernel;
        for (i = 0; i < 3; ++i) {
            if (own[i] != 0) {
                alone.params = own[i];
                crc = kinds[i]->digest(&alone, crc);
            }
        }
        crc = vmcu_crc32_i32s(crc, m->sources, 2u);
        crc = vmcu_crc32_u32(crc, (uint32_t)m->result);
    }
    return crc;
}

const vmcu_kernel vmcu_group_s16_kernel = {.run = vmcu_group_s16, .check = group_s16_check,
                                           .digest = group_s16_digest};
