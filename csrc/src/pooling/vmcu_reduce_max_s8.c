/*
 * REDUCE_MAX, int8 (whole tensor: the output is apart): every output element, in order, is the
 * largest raw input over the reduced dimensions at its kept position. The walk is MEAN's, kept
 * apart from MEAN's tuned loops.
 */
#include "vmcu/vmcu_check.h"
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

/* The leading dimensions split into kept ones (one output each, walked by the output index) and
 * reduced ones (walked for every output), each with its input stride. */
typedef struct {
    int32_t kept_dims[VMCU_MAX_DIMS], kept_strides[VMCU_MAX_DIMS];
    int32_t red_dims[VMCU_MAX_DIMS], red_strides[VMCU_MAX_DIMS];
    int32_t kept, reduced;
    int32_t outer;     /**< product of the kept dimensions */
    int32_t positions; /**< product of the reduced dimensions */
} reduction;

/** Split the `rank` dimensions (row-major strides computed here). */
static void reduction_split(reduction *r, const int32_t *dims, const uint8_t *reduce, int32_t rank)
{
    int32_t stride[VMCU_MAX_DIMS];
    int32_t d;
    stride[rank - 1] = 1;
    for (d = rank - 1; d > 0; --d) {
        stride[d - 1] = stride[d] * dims[d];
    }
    r->kept = r->reduced = 0;
    r->outer = r->positions = 1;
    for (d = 0; d < rank; ++d) {
        if (reduce[d]) {
            r->red_dims[r->reduced] = dims[d];
            r->red_strides[r->reduced++] = stride[d];
            r->positions *= dims[d];
        } else {
            r->kept_dims[r->kept] = dims[d];
            r->kept_strides[r->kept++] = stride[d];
            r->outer *= dims[d];
        }
    }
}

/** The input offset of kept position `o` (row-major over the kept dimensions). */
static uint32_t reduction_base(const reduction *r, int32_t o)
{
    uint32_t base = 0;
    int32_t k;
    for (k = r->kept - 1; k >= 0; --k) {
        base += (uint32_t)((o % r->kept_dims[k]) * r->kept_strides[k]);
        o /= r->kept_dims[k];
    }
    return base;
}

/** Advance `idx` (reduced multi-index) to the next reduced position; returns the offset change. */
static uint32_t reduction_next(const reduction *r, int32_t *idx)
{
    uint32_t delta = 0;
    int32_t k;
    for (k = r->reduced - 1; k >= 0; --k) {
        delta += (uint32_t)r->red_strides[k];
        if (++idx[k] < r->red_dims[k]) {
            break;
        }
        delta -= (uint32_t)(r->red_dims[k] * r->red_strides[k]);
        idx[k] = 0;
    }
    return delta;
}


vmcu_status vmcu_reduce_max_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                               const vmcu_view *output)
{
    const vmcu_reduce_params *p = (const vmcu_reduce_params *)params;
    reduction r;
    int32_t red_idx[VMCU_MAX_DIMS];
    int32_t o, k;
    (void)ctx;
    if (p->rank < 1 || p->rank > VMCU_MAX_DIMS) {
        return VMCU_ERROR_BAD_MODEL;
    }
    reduction_split(&r, p->dims, p->reduce, p->rank);
    for (o = 0; o < r.outer; ++o) {
        uint32_t offset = reduction_base(&r, o);
        int32_t pos, best = -128;
        for (k = 0; k < r.reduced; ++k) {
            red_idx[k] = 0;
        }
        for (pos = 0; pos < r.positions; ++pos) {
            best = vmcu_max(best, vmcu_get(&inputs[0], offset));
            offset += reduction_next(&r, red_idx);
        }
        vmcu_put(output, (uint32_t)o, (int8_t)best);
    }
    return VMCU_OK;
}

/* The input's dimensions to the byte, the kept ones to the output's. */
static vmcu_status reduce_max_check(const vmcu_model *model, const vmcu_step *step)
{
    const vmcu_reduce_params *p = (const vmcu_reduce_params *)step->params;
    int32_t kept[VMCU_MAX_DIMS];
    int32_t d, num_kept = 0;
    if (!vmcu_in_range(p->rank, 1, VMCU_MAX_DIMS) || vmcu_product(p->dims, p->rank) == 0u ||
        vmcu_product(p->dims, p->rank) != vmcu_input_bytes(model, step, 0)) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (d = 0; d < p->rank; ++d) {
        if (!p->reduce[d]) {
            kept[num_kept++] = p->dims[d];
        }
    }
    return vmcu_product(kept, num_kept) == vmcu_output_bytes(model, step) ? VMCU_OK : VMCU_ERROR_BAD_MODEL;
}

static uint32_t reduce_max_digest(const vmcu_step *step, uint32_t crc)
{
    const vmcu_reduce_params *p = (const vmcu_reduce_params *)step->params;
    int32_t d;
    crc = vmcu_crc32_u32(crc, (uint32_t)p->rank);
    crc = vmcu_crc32_i32s(crc, p->dims, VMCU_MAX_DIMS);
    for (d = 0; d < VMCU_MAX_DIMS; ++d) {
        crc = vmcu_crc32_u32(crc, p->reduce[d]);
    }
    return crc;
}

const vmcu_kernel vmcu_reduce_max_s8_kernel = {
    .run = vmcu_reduce_max_s8, .check = reduce_max_check, .digest = reduce_max_digest};
