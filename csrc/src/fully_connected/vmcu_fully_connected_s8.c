/*
 * FULLY_CONNECTED, int8: TFLite's FullyConnected / FullyConnectedPerChannel over M rows.
 *
 * Iterations (row m, output segment q), as the planner's `rows` pattern: iteration (m, q)
 * reads input row m and computes units [q * S, min((q + 1) * S, N)) of output row m into
 * ctx->scratch before storing them (see vmcu_row_writer.h). Units go two at a time (one load
 * of the input for both; a pair may straddle two segments of a row, which read the same row);
 * the dot products use the DSP extension when the core has it (see vmcu_dsp.h).
 */
#include "vmcu/vmcu_kernels.h"
#include "vmcu/vmcu_support.h"

#include "vmcu/vmcu_dsp.h"
#include "../vmcu_row_writer.h"

vmcu_status vmcu_fully_connected_s8(const vmcu_context *ctx, const void *params, const vmcu_view *inputs,
                                    const vmcu_view *output)
{
    const vmcu_fully_connected_params *p = (const vmcu_fully_connected_params *)params;
    const vmcu_view *in = &inputs[0];
    const int32_t depth = p->depth, units = p->units;
    const int32_t segment = (int32_t)ctx->step->segment;
    int32_t m;
    if (segment < 1 || depth < 0 || units < 1) {
        return VMCU_ERROR_BAD_MODEL;
    }
    for (m = 0; m < p->rows; ++m) {
        const uint32_t row = (uint32_t)(m * depth);
        /* the row as one pointer, unless it wraps around the end of the pool */
        const int8_t *run = vmcu_span(in, row, (uint32_t)depth);
        vmcu_row_writer out;
        int32_t u = 0;
        vmcu_row_begin(&out, ctx, output, (uint32_t)(m * units), units);
        while (u < units) { /* units by pairs, stored segment by segment */
            const int32_t pair = u + 1 < units;
            const int8_t *w0 = p->filter + u * depth;
            const int8_t *w1 = w0 + depth;
            int32_t acc[2];
            int32_t k;
            acc[0] = p->bias ? p->bias[u] : 0;
            acc[1] = pair && p->bias ? p->bias[u + 1] : 0;
            if (run == 0) { /* byte by byte through the wrap */
                int32_t i;
                for (i = 0; i < depth; ++i) {
                    const int32_t v = (int32_t)vmcu_get(in, row + (uint32_t)i) + p->input_offset;
                    acc[0] += v * (int32_t)w0[i];
                    if (pair) {
                        acc[1] += v * (int32_t)w1[i];
                    }
                }
            } else if (pair) {
                vmcu_dot2_s8(run, w0, w1, depth, p->input_offset, acc);
            } else {
                acc[0] = vmcu_dot_s8(run, w0, depth, p->input_offset, acc[0]);
            }
            for (k = 0; k <= pair; ++k) {
                const int32_t v =
                    vmcu_requantize(acc[k], p->requant.multiplier[u + k], p->requant.shift[u + k]) + p->output_offset;
                vmcu_row_put(&out, (int8_t)vmcu_clamp(v, p->requant.act_min, p->requant.act_max));
            }
            u += 1 + pair;
        }
    }
    return VMCU_OK;
}
